// The table of node records by number (docs/checker.md, Performance, "Node records by number").
#include <cstring>
#include <stdexcept>
#include <string>

#include "model.hpp"

namespace lmx::check::detail {

void RecordTable::reset(std::size_t bytes, std::size_t capacity) {
  bytes_ = bytes;
  capacity_ = capacity;
  count_ = 0;
  data_.clear();
  index_.assign(std::size_t{1} << 12, 0);
}

std::uint32_t RecordTable::intern(const std::uint8_t* rec) {
  const std::size_t mask = index_.size() - 1;
  for (std::size_t i = hash_bytes(rec, bytes_) & mask;; i = (i + 1) & mask) {
    const std::uint32_t e = index_[i];
    if (e == 0) break;
    if (std::memcmp(at(e - 1), rec, bytes_) == 0) return e - 1;
  }
  if (count_ == capacity_)
    throw std::length_error("check: more than " + std::to_string(capacity_) +
                            " distinct node records, the most a stored state can number; run with --no-collapse");
  data_.insert(data_.end(), rec, rec + bytes_);
  const auto id = static_cast<std::uint32_t>(count_++);
  if (count_ * 2 > index_.size()) {
    grow();  // places every record, the new one included
  } else {
    std::size_t i = hash_bytes(rec, bytes_) & mask;
    while (index_[i] != 0) i = (i + 1) & mask;
    index_[i] = id + 1;
  }
  return id;
}

void RecordTable::grow() {
  index_.assign(index_.size() * 2, 0);
  const std::size_t mask = index_.size() - 1;
  for (std::size_t id = 0; id < count_; ++id) {
    std::size_t i = hash_bytes(at(static_cast<std::uint32_t>(id)), bytes_) & mask;
    while (index_[i] != 0) i = (i + 1) & mask;
    index_[i] = static_cast<std::uint32_t>(id + 1);
  }
}

void Model::restore_node_records(const std::uint8_t* data, std::size_t count) const {
  if (records_.size() != 0) throw std::logic_error("check: node records restored into a used table");
  for (std::size_t i = 0; i < count; ++i)
    if (records_.intern(data + i * records_.record_bytes()) != i)
      throw std::runtime_error("check: a checkpoint's node records repeat");
}

}  // namespace lmx::check::detail
