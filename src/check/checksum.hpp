// The 64-bit checksum of a checkpoint's files and header (docs/checker.md, "The checkpoint's
// format"). Internal to lmx::check; lmx::check::checkpoint_checksum is its public form.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

namespace lmx::check::detail {

/// A checksum as it is written in a checkpoint: 16 lowercase hexadecimal digits.
inline std::string hex16(std::uint64_t v) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(v));
  return text;
}

/// MurmurHash3's 64-bit finaliser: a bijection in which every bit affects every bit.
inline std::uint64_t murmur_finalize(std::uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

/// A checksum computed over a byte stream given in pieces of any size. The bytes are read as
/// little-endian 64-bit words dealt round-robin to four lanes, and each lane folds its words as
/// h = m(h ^ w), m(x) = s(x * K) with K odd and s(y) = y ^ (y >> 29): m is a bijection, so for a
/// fixed h every change of w changes the lane, and every later step keeps lanes that differ apart.
/// The digest mixes the length and then each lane in with a bijective finaliser. So a change
/// within one 8-byte word (a flipped bit, say) always changes the checksum, and so does a change of
/// length alone; other changes collide with probability about 2^-64. Four independent lanes keep
/// it at several GB/s, well above the disks it reads from.
class Checksum {
 public:
  void update(const void* data, std::size_t n) {
    const auto* p = static_cast<const std::uint8_t*>(data);
    total_ += n;
    if (held_ > 0) {  // complete the block begun by the previous piece
      const std::size_t take = n < block - held_ ? n : block - held_;
      if (take > 0) std::memcpy(pending_.data() + held_, p, take);
      held_ += take, p += take, n -= take;
      if (held_ < block) return;
      fold(pending_.data());
      held_ = 0;
    }
    for (; n >= block; p += block, n -= block) fold(p);
    if (n > 0) std::memcpy(pending_.data(), p, n);  // p may be null when n is 0 (an empty file)
    held_ = n;
  }
  [[nodiscard]] std::uint64_t digest() const {
    std::array<std::uint64_t, 4> lane = lane_;
    std::array<std::uint8_t, block> tail{};  // the last, partial block, zero-padded (the length tells)
    std::memcpy(tail.data(), pending_.data(), held_);
    for (std::size_t i = 0; i * 8 < held_; ++i) lane[i] = step(lane[i], word(tail.data() + 8 * i));
    std::uint64_t h = mix(total_ ^ 0x6C6D782D63686B31ull);
    for (std::uint64_t l : lane) h = mix(h ^ l);
    return h;
  }

 private:
  static constexpr std::size_t block = 32;
  static std::uint64_t word(const std::uint8_t* p) {
    std::uint64_t w = 0;
    for (unsigned i = 0; i < 8; ++i) w |= std::uint64_t{p[i]} << (8 * i);  // little-endian everywhere
    return w;
  }
  static std::uint64_t step(std::uint64_t h, std::uint64_t w) {
    h = (h ^ w) * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
  }
  static std::uint64_t mix(std::uint64_t h) { return murmur_finalize(h); }
  void fold(const std::uint8_t* p) {
    for (std::size_t i = 0; i < 4; ++i) lane_[i] = step(lane_[i], word(p + 8 * i));
  }
  std::array<std::uint64_t, 4> lane_{0x243F6A8885A308D3ull, 0x13198A2E03707344ull, 0xA4093822299F31D0ull,
                                     0x082EFA98EC4E6C89ull};
  std::array<std::uint8_t, block> pending_{};
  std::size_t held_ = 0;
  std::uint64_t total_ = 0;
};

/// The checksum of n bytes at once.
inline std::uint64_t checksum_of(const void* data, std::size_t n) {
  Checksum c;
  c.update(data, n);
  return c.digest();
}

}  // namespace lmx::check::detail
