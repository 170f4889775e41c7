// The set of stored states: an arena of packed states and a hashed index (docs/checker.md,
// Performance). Internal to lmx::check.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include "model.hpp"
#include "storage.hpp"

namespace lmx::check::detail {

/// The set of stored states: an arena of packed states and an open-addressing index (linear
/// probing). Each slot holds the state's number and 32 further bits of its hash, so that a probe
/// compares the stored bytes only when the hashes agree: a mismatch costs no access to the arena.
/// The index may have any number of slots (a state's first slot is the low half of its hash scaled
/// to the table, the high half is the tag), so it grows by half instead of doubling: on the largest
/// instances that is gigabytes, at the end of the exploration and while growing.
class StateSet {
 public:
  explicit StateSet(std::size_t stride) : stride_(stride) { table_ = index_of(slots_); }
  [[nodiscard]] std::size_t size() const { return count_; }
  [[nodiscard]] const std::uint8_t* at(std::size_t i) const { return arena_.data() + i * stride_; }
  /// Makes room for `extra` insertions without growing the index (so prefetched slots stay valid).
  void reserve(std::size_t extra) {
    if (arena_.in_file()) throw std::logic_error("check: an insertion into states moved to a file");
    while ((count_ + extra) * 10 > slots_ * 7) grow();  // load factor at most 0.7
    if ((count_ + extra) * stride_ > arena_.bytes())
      arena_.grow(std::max((count_ + extra) * stride_, 2 * arena_.bytes()));
  }
  [[nodiscard]] std::uint64_t hash(const std::uint8_t* s) const { return hash_bytes(s, stride_); }
  void prefetch(std::uint64_t h) const { __builtin_prefetch(slot() + home(h)); }
  /// Prefetches the stored state the first matching slot points at (a hint: most successors
  /// are already stored, and comparing them is the second cache miss of a lookup).
  void prefetch_match(std::uint64_t h) const {
    const std::uint64_t e = slot()[home(h)];
    if (e != 0 && (e & tag_bits) == (h & tag_bits)) __builtin_prefetch(at(static_cast<std::uint32_t>(e) - 1));
  }
  /// Returns (index, inserted); needs reserve() first. `h` is hash(s).
  std::pair<std::uint32_t, bool> insert(const std::uint8_t* s, std::uint64_t h) {
    const std::uint64_t tag = h & tag_bits;
    std::uint64_t* t = slot();
    for (std::size_t i = home(h);; i = next(i)) {
      const std::uint64_t e = t[i];
      if (e == 0) {
        std::memcpy(arena_.data() + count_ * stride_, s, stride_);
        t[i] = tag | static_cast<std::uint32_t>(++count_);
        return {static_cast<std::uint32_t>(count_ - 1), true};
      }
      if ((e & tag_bits) == tag) {
        const auto idx = static_cast<std::uint32_t>(e) - 1;
        if (std::memcmp(at(idx), s, stride_) == 0) return {idx, false};
      }
    }
  }
  std::pair<std::uint32_t, bool> insert(const std::uint8_t* s) {
    reserve(1);
    return insert(s, hash(s));
  }
  /// The index of a stored state, or UINT32_MAX.
  [[nodiscard]] std::uint32_t find(const std::uint8_t* s) const { return find(s, hash(s)); }
  /// The same, with `h` = hash(s).
  [[nodiscard]] std::uint32_t find(const std::uint8_t* s, std::uint64_t h) const {
    if (table_.bytes() == 0) throw std::logic_error("check: a lookup in a released index");
    const std::uint64_t tag = h & tag_bits;
    for (std::size_t i = home(h);; i = next(i)) {
      const std::uint64_t e = slot()[i];
      if (e == 0) return UINT32_MAX;
      if ((e & tag_bits) == tag && std::memcmp(at(static_cast<std::uint32_t>(e) - 1), s, stride_) == 0)
        return static_cast<std::uint32_t>(e) - 1;
    }
  }
  /// Frees the index (lookups and insertions need restore_index() first); the states stay.
  void release_index() { table_ = Region{}; }
  /// Moves the stored states to a temporary file (Region::move_to_file): no insertions after it.
  bool move_states_to_file() { return arena_.move_to_file(count_ * stride_); }
  /// Builds the index again from the stored states.
  void restore_index() {
    if (table_.bytes() != 0) return;
    rebuild();
  }
  /// Saves the stored states to the file `name` of a checkpoint.
  void save(FileSet& out, const std::string& name) const { out.write(name, arena_.data(), count_ * stride_); }
  /// The stored states become those saved at `path` (mapped read-only, as by move_states_to_file),
  /// without an index: restore_index() builds it, sized as the insertions would have.
  void load(const std::string& path) {
    table_ = Region{};
    const std::size_t bytes = arena_.map_file(path);
    if (bytes % stride_ != 0) throw std::runtime_error("check: " + path + " has the wrong size for its states");
    count_ = bytes / stride_;
    constexpr std::size_t most = std::size_t{1} << 32;
    while (count_ * 10 > slots_ * 7 && slots_ < most) slots_ = std::min(slots_ + slots_ / 2, most);
  }
  /// Arena plus index, per stored state.
  [[nodiscard]] std::size_t bytes_per_state() const {
    return count_ == 0 ? stride_ : stride_ + slots_ * sizeof(std::uint64_t) / count_;
  }

 private:
  static constexpr std::uint64_t tag_bits = 0xFFFFFFFF00000000ull;
  [[nodiscard]] std::uint64_t* slot() const { return reinterpret_cast<std::uint64_t*>(table_.data()); }
  // The slots are at most 2^32 (checked in grow), so the product fits 64 bits.
  [[nodiscard]] std::size_t home(std::uint64_t h) const { return (h & 0xFFFFFFFFu) * slots_ >> 32; }
  [[nodiscard]] std::size_t next(std::size_t i) const { return i + 1 == slots_ ? 0 : i + 1; }
  /// Puts an entry known to be absent into table `t` (of slots_ slots), at the first free slot from
  /// the home of its hash `h`.
  void place(std::uint64_t* t, std::uint64_t h, std::uint64_t entry) const {
    std::size_t i = home(h);
    while (t[i] != 0) i = next(i);
    t[i] = entry;
  }
  static Region index_of(std::size_t slots) {
    Region r;
    r.grow(slots * sizeof(std::uint64_t));
    return r;
  }
  void grow() {
    constexpr std::size_t most = std::size_t{1} << 32;  // 0.7 of it exceeds every 32-bit state number
    if (slots_ == most) throw std::length_error("check: state index over 2^32 slots");
    // The old index is freed before the new one is built: the stored states say where each goes
    // (hashing them again, as moving their slots would need to anyway). So growing never holds
    // two indexes, which on the largest instances was the run's peak of memory.
    table_ = Region{};
    slots_ = std::min(slots_ + slots_ / 2, most);
    rebuild();
  }
  /// Every stored state goes to its home slot, a cache miss at a random place of the table; their
  /// hashes are computed `rebuild_ahead` states early and the homes prefetched, so that the misses
  /// overlap instead of coming one after another (growing took a fifth of an exploration).
  static constexpr std::size_t rebuild_ahead = 32;
  void rebuild() {
    table_ = index_of(slots_);
    std::array<std::uint64_t, rebuild_ahead> ring{};
    const std::size_t first = std::min(count_, rebuild_ahead);
    for (std::size_t j = 0; j < first; ++j) {
      ring[j] = hash_bytes(at(j), stride_);
      prefetch(ring[j]);
    }
    for (std::size_t j = 0; j < count_; ++j) {
      const std::uint64_t h = ring[j % rebuild_ahead];
      if (j + rebuild_ahead < count_) {
        const std::uint64_t ahead = hash_bytes(at(j + rebuild_ahead), stride_);
        prefetch(ahead);
        ring[j % rebuild_ahead] = ahead;
      }
      place(slot(), h, (h & tag_bits) | static_cast<std::uint32_t>(j + 1));
    }
  }
  std::size_t stride_;
  std::size_t count_ = 0;
  std::size_t slots_ = std::size_t{1} << 16;
  Region arena_;
  Region table_;
};

}  // namespace lmx::check::detail
