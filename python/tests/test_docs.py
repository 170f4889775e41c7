"""Every ```python block of docs/python.md runs (in order, in one namespace, in a temporary
directory), so that the documentation's examples stay true."""
import os
import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "python.md"


def test_every_example_in_docs_python_md_runs(tmp_path, monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert len(blocks) >= 4
    monkeypatch.chdir(tmp_path)
    namespace = {}
    for i, block in enumerate(blocks):
        try:
            exec(compile(block, f"docs/python.md block {i + 1}", "exec"), namespace)
        except Exception as e:  # noqa: BLE001 (name the block that failed)
            raise AssertionError(f"docs/python.md, block {i + 1} failed: {e!r}\n{block}") from e
