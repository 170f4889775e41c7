// Storage of the exploration: memory regions, columns and the liveness graph (docs/checker.md,
// Performance). Internal to lmx::check; a header so that tests can reach the graph's code.
#pragma once

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "model.hpp"

namespace lmx::check::detail {

/// A descriptor of a new unnamed temporary file (deleted when the last descriptor or mapping of it
/// goes), or -1 if none can be made.
inline int temporary_file() {
  std::FILE* file = std::tmpfile();
  if (file == nullptr) return -1;
  const int fd = dup(fileno(file));
  std::fclose(file);
  return fd;
}

/// Writes all `n` bytes at `p` to `fd`; false on an error (a full disk).
inline bool write_all(int fd, const void* p, std::size_t n) {
  const auto* bytes = static_cast<const std::uint8_t*>(p);
  while (n > 0) {
    const ssize_t written = ::write(fd, bytes, std::min<std::size_t>(n, std::size_t{1} << 30));
    if (written <= 0) return false;
    bytes += written, n -= static_cast<std::size_t>(written);
  }
  return true;
}

/// Creates (or empties) the file at `path` for writing; throws, naming it, if it cannot.
inline int create_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("check: cannot create " + path + ": " + std::strerror(errno));
  return fd;
}

/// Opens the file at `path` for reading and gives its size; throws, naming it, if it cannot.
inline int open_file(const std::string& path, std::size_t& bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (fd < 0 || fstat(fd, &st) != 0) {
    if (fd >= 0) close(fd);
    throw std::runtime_error("check: cannot read " + path + ": " + std::strerror(errno));
  }
  bytes = static_cast<std::size_t>(st.st_size);
  return fd;
}

/// Writes `n` bytes at `p` to a new file at `path`, then `pad` zero bytes; throws on an error.
inline void save_file(const std::string& path, const void* p, std::size_t n, std::size_t pad = 0) {
  static constexpr std::array<std::uint8_t, 64> zeros{};
  const int fd = create_file(path);
  const bool ok = pad <= zeros.size() && write_all(fd, p, n) && write_all(fd, zeros.data(), pad);
  if (close(fd) != 0 || !ok) throw std::runtime_error("check: cannot write " + path + " (disk full?)");
}

/// Zero-initialised anonymous memory that grows without copying (mremap) and asks for transparent
/// huge pages: the index and the arena are read at random, and with 4 KiB pages nearly every
/// lookup also misses the TLB. Or, after keep_in_file(), a shared mapping of an unnamed temporary
/// file: the kernel writes its pages back and may drop them when memory runs short, and reads
/// them in again when they are touched.
class Region {
 public:
  Region() = default;
  Region(const Region&) = delete;
  Region& operator=(const Region&) = delete;
  Region(Region&& o) noexcept { swap(o); }
  Region& operator=(Region&& o) noexcept {
    Region gone;
    gone.swap(o);
    swap(gone);  // the old contents leave with `gone`
    return *this;
  }
  ~Region() {
    if (base_ != nullptr) munmap(base_, bytes_);
    if (fd_ >= 0) close(fd_);
  }
  /// From now on the region lives in a temporary file (before it first grows). Throws if no file
  /// can be made.
  void keep_in_file() {
    if (base_ != nullptr || fd_ >= 0) throw std::logic_error("check: a region moved to a file after use");
    fd_ = temporary_file();
    if (fd_ < 0) throw std::runtime_error("check: cannot make a temporary file for the liveness graph");
  }
  [[nodiscard]] std::uint8_t* data() const { return static_cast<std::uint8_t*>(base_); }
  [[nodiscard]] std::size_t bytes() const { return bytes_; }
  /// Grows to at least `bytes` (contents kept, new bytes zero).
  void grow(std::size_t bytes) {
    if (bytes <= bytes_) return;
    if (in_file_) throw std::logic_error("check: growing a region moved to a file");
    bytes = (bytes + huge - 1) / huge * huge;
    // The file's blocks are allocated before they are mapped: a full disk is an error here, not
    // a fault when a page is first written.
    if (fd_ >= 0 && posix_fallocate(fd_, 0, static_cast<off_t>(bytes)) != 0)
      throw std::runtime_error("check: cannot grow the liveness graph's temporary file (disk full?)");
    void* p = base_ != nullptr ? mremap(base_, bytes_, bytes, MREMAP_MAYMOVE)
              : fd_ >= 0       ? mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0)
                               : mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    if (fd_ < 0) madvise(p, bytes, MADV_HUGEPAGE);  // a hint: failure only costs speed
    base_ = p;
    bytes_ = bytes;
  }
  void swap(Region& o) noexcept {
    std::swap(base_, o.base_);
    std::swap(bytes_, o.bytes_);
    std::swap(in_file_, o.in_file_);
    std::swap(fd_, o.fd_);
  }
  /// Moves the first `used` bytes to an unnamed temporary file mapped read-only in their place, and
  /// frees the memory: the kernel keeps the pages it has room for and reads the others back, so
  /// data read only in order (the stored states, in the analysis) no longer takes memory the
  /// analysis needs. Returns false, and keeps the memory, if no file can be made or written.
  bool move_to_file(std::size_t used) {
    if (in_file_ || fd_ >= 0 || base_ == nullptr || used == 0) return in_file_ || fd_ >= 0;
    const int fd = temporary_file();
    if (fd < 0) return false;
    void* p = write_all(fd, data(), used) ? mmap(nullptr, used, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
    close(fd);  // the mapping keeps the (unlinked) file until it is unmapped
    if (p == MAP_FAILED) return false;
    // Read in order: the kernel may read ahead, and drop these pages first when memory is short.
    madvise(p, used, MADV_SEQUENTIAL);
    munmap(base_, bytes_);
    base_ = p;
    bytes_ = used;
    in_file_ = true;
    return true;
  }
  [[nodiscard]] bool in_file() const { return in_file_; }
  /// Gives back what lies past the first `used` bytes (rounded up to a page): memory, or the
  /// temporary file's disk blocks, which a region grown by doubling holds up to twice of. The
  /// contents kept stay; a later growth maps and allocates again.
  void shrink(std::size_t used) {
    constexpr std::size_t page = 4096;
    used = std::max<std::size_t>((used + page - 1) / page * page, page);
    if (base_ == nullptr || in_file_ || used >= bytes_) return;
    void* p = mremap(base_, bytes_, used, 0);
    if (p == MAP_FAILED) return;  // only space is lost
    base_ = p;
    bytes_ = used;
    if (fd_ >= 0 && ftruncate(fd_, static_cast<off_t>(used)) != 0) return;  // the same
  }
  /// The region becomes the file at `path`, mapped read-only (a checkpoint's, read back); returns
  /// the file's size.
  std::size_t map_file(const std::string& path) {
    Region gone;
    swap(gone);
    std::size_t used = 0;
    const int fd = open_file(path, used);
    void* p = used == 0 ? nullptr : mmap(nullptr, used, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);  // the mapping keeps the file
    if (p == MAP_FAILED) throw std::runtime_error("check: cannot map " + path);
    base_ = p;
    bytes_ = used;
    in_file_ = used != 0;
    return used;
  }

 private:
  static constexpr std::size_t huge = std::size_t{2} << 20;
  void* base_ = nullptr;
  std::size_t bytes_ = 0;
  bool in_file_ = false;  ///< moved to a file, read-only
  int fd_ = -1;           ///< kept in this file (keep_in_file), read-write
};

/// A growable array of trivially copyable values in a Region. Growing remaps instead of copying,
/// so a push past the capacity never holds two copies at once (a std::vector of a few GB would),
/// and pages not yet written take no memory.
template <class T>
class Column {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  [[nodiscard]] std::size_t size() const { return size_; }
  void push_back(T v) {
    if ((size_ + 1) * sizeof(T) > region_.bytes()) region_.grow(std::max<std::size_t>(2 * region_.bytes(), 1 << 21));
    data()[size_++] = v;
  }
  [[nodiscard]] T& operator[](std::size_t i) { return data()[i]; }
  [[nodiscard]] const T& operator[](std::size_t i) const { return data()[i]; }
  [[nodiscard]] const T& back() const { return data()[size_ - 1]; }
  [[nodiscard]] T& back() { return data()[size_ - 1]; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  void pop_back() { --size_; }
  [[nodiscard]] T* data() const { return reinterpret_cast<T*>(region_.data()); }
  /// Keeps the values in a temporary file (Region::keep_in_file); before the first push.
  void keep_in_file() { region_.keep_in_file(); }
  /// Gives back the space past the values and the 8 readable bytes after them (Region::shrink).
  void shrink() { region_.shrink(size_ * sizeof(T) + 16); }
  /// Writes the values to a file, then `pad` zero bytes.
  void save(const std::string& path, std::size_t pad = 0) const { save_file(path, data(), size_ * sizeof(T), pad); }
  /// The values become those saved at `path` (with the same `pad`), mapped read-only: no pushes
  /// after it.
  void load(const std::string& path, std::size_t pad = 0) {
    const std::size_t bytes = region_.map_file(path);
    if (bytes < pad || (bytes - pad) % sizeof(T) != 0)
      throw std::runtime_error("check: " + path + " has the wrong size for a checkpoint file");
    size_ = (bytes - pad) / sizeof(T);
  }
  /// Appends the low `len` bytes of `w` (bytes only). The region keeps at least 8 zero bytes past
  /// the end, so a reader may load 8 bytes at any position before it.
  void append_word(std::uint64_t w, unsigned len) {
    static_assert(sizeof(T) == 1);
    if (size_ + 16 > region_.bytes()) region_.grow(std::max<std::size_t>(2 * region_.bytes(), 1 << 21));
    std::memcpy(data() + size_, &w, 8);  // the bytes past len are zero, as the region was
    size_ += len;
  }

 private:
  Region region_;
  std::size_t size_ = 0;
};

/// An append-only array of values read back rarely and one at a time (the parent links, read only
/// to write counterexamples), kept in an unnamed temporary file instead of memory: 4 bytes per
/// stored state that the largest runs need for the graph. Appends go through a buffer, written
/// out when full; a read takes a value from the buffer or the file. Where no temporary file can be
/// made, the values stay in memory.
template <class T>
class FileColumn {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  explicit FileColumn(bool use_file = true) : fd_(use_file ? temporary_file() : -1) {}
  FileColumn(const FileColumn&) = delete;
  FileColumn& operator=(const FileColumn&) = delete;
  ~FileColumn() {
    if (fd_ >= 0) close(fd_);
  }
  [[nodiscard]] bool in_file() const { return fd_ >= 0; }
  [[nodiscard]] std::size_t size() const { return fd_ < 0 ? memory_.size() : flushed_ + buffer_.size(); }
  /// Writes every value to a new file at `path`.
  void save(const std::string& path) {
    if (fd_ < 0) return memory_.save(path);
    flush();
    const int out = create_file(path);
    std::vector<std::uint8_t> chunk(std::size_t{1} << 20);
    bool ok = true;
    for (std::size_t at = 0, total = flushed_ * sizeof(T); ok && at < total;) {
      const ssize_t got = pread(fd_, chunk.data(), std::min(chunk.size(), total - at), static_cast<off_t>(at));
      ok = got > 0 && write_all(out, chunk.data(), static_cast<std::size_t>(got));
      at += ok ? static_cast<std::size_t>(got) : 0;
    }
    if (close(out) != 0 || !ok) throw std::runtime_error("check: cannot write " + path + " (disk full?)");
  }
  /// The values become those saved at `path`, read from the file as they are needed.
  void load(const std::string& path) {
    std::size_t bytes = 0;
    const int fd = open_file(path, bytes);
    if (bytes % sizeof(T) != 0) {
      close(fd);
      throw std::runtime_error("check: " + path + " has the wrong size for a checkpoint file");
    }
    if (fd_ >= 0) close(fd_);
    fd_ = fd;
    buffer_.clear();
    flushed_ = bytes / sizeof(T);
  }
  void push_back(T v) {
    if (fd_ < 0) {
      memory_.push_back(v);
      return;
    }
    buffer_.push_back(v);
    if (buffer_.size() == buffered) flush();
  }
  [[nodiscard]] T operator[](std::size_t i) {
    if (fd_ < 0) return memory_[i];
    if (i >= flushed_) return buffer_[i - flushed_];
    T v;
    const auto at = static_cast<off_t>(i * sizeof(T));
    if (pread(fd_, &v, sizeof(T), at) != static_cast<ssize_t>(sizeof(T)))
      throw std::runtime_error("check: cannot read back the temporary file of parent links");
    return v;
  }

 private:
  static constexpr std::size_t buffered = std::size_t{1} << 16;
  void flush() {
    if (!write_all(fd_, buffer_.data(), buffer_.size() * sizeof(T)))
      throw std::runtime_error("check: cannot write the temporary file of parent links (disk full?)");
    flushed_ += buffer_.size();
    buffer_.clear();
  }
  int fd_;
  std::vector<T> buffer_;
  std::size_t flushed_ = 0;
  Column<T> memory_;
};

/// A non-decreasing sequence of offsets, one per state (into the actions or the code of the
/// liveness graph), in about 2 bytes each instead of 4: a 64-bit base per block of 256 values and
/// a 16-bit difference from it per value. A block whose differences outgrow 16 bits (states with
/// unusually many targets) keeps them in 32 bits instead, in a segment of its own. Appending and
/// reading only; pushes never decrease.
class BlockOffsets {
 public:
  static constexpr std::size_t block = 256;
  [[nodiscard]] std::size_t size() const { return narrow_.size(); }
  void keep_in_file() {
    narrow_.keep_in_file();
    wide_.keep_in_file();
  }
  void push_back(std::uint64_t v) {
    const std::size_t i = narrow_.size();
    if (i % block == 0) blocks_.push_back(Block{v, no_segment});
    Block& b = blocks_.back();
    const std::uint64_t d = v - b.base;
    if (b.segment == no_segment && d > 0xFFFF) {  // this block goes wide: its values so far move
      if (wide_.size() / block >= no_segment) throw std::length_error("check: too many wide offset blocks");
      b.segment = static_cast<std::uint32_t>(wide_.size() / block);
      for (std::size_t j = i - i % block; j < i; ++j) wide_.push_back(narrow_[j]);
      for (std::size_t j = i % block; j < block; ++j) wide_.push_back(0);
    }
    if (b.segment != no_segment) {
      if (d > UINT32_MAX) throw std::length_error("check: an offset block spans over 2^32");
      wide_[std::size_t{b.segment} * block + i % block] = static_cast<std::uint32_t>(d);
    }
    narrow_.push_back(static_cast<std::uint16_t>(d));  // unused in a wide block, but keeps the count
  }
  [[nodiscard]] std::uint64_t operator[](std::size_t i) const {
    const Block& b = blocks_[i / block];
    return b.base + (b.segment == no_segment ? narrow_[i] : wide_[std::size_t{b.segment} * block + i % block]);
  }
  [[nodiscard]] std::uint64_t back() const { return (*this)[size() - 1]; }
  [[nodiscard]] std::size_t bytes() const {
    return narrow_.size() * 2 + wide_.size() * 4 + blocks_.size() * sizeof(Block);
  }
  void shrink() {
    narrow_.shrink();
    wide_.shrink();
  }
  /// Saves the offsets to three files: `prefix` plus ".blocks", ".narrow" and ".wide".
  void save(const std::string& prefix) const {
    save_file(prefix + ".blocks", blocks_.data(), blocks_.size() * sizeof(Block));
    narrow_.save(prefix + ".narrow");
    wide_.save(prefix + ".wide");
  }
  /// Reads back what save wrote: the blocks into memory, the values mapped read-only.
  void load(const std::string& prefix) {
    Column<Block> blocks;
    blocks.load(prefix + ".blocks");
    narrow_.load(prefix + ".narrow");
    wide_.load(prefix + ".wide");
    if (blocks.size() != (narrow_.size() + block - 1) / block || wide_.size() % block != 0)
      throw std::runtime_error("check: the offsets saved at " + prefix + " do not match");
    blocks_.assign(blocks.data(), blocks.data() + blocks.size());
  }

 private:
  static constexpr std::uint32_t no_segment = UINT32_MAX;
  struct Block {
    std::uint64_t base;
    std::uint32_t segment;  ///< its 32-bit differences in wide_, from segment * block; or no_segment
  };
  std::vector<Block> blocks_;
  Column<std::uint16_t> narrow_;
  Column<std::uint32_t> wide_;
};

// Task identity of an action (node, move, port or action, message), plus flags.
constexpr std::uint32_t completes_bit = 1u << 24;
constexpr std::uint32_t fair_bit = 1u << 25;
constexpr std::uint32_t task_mask = completes_bit - 1;
constexpr std::uint32_t stutter_task = task_mask;
// What the liveness graph keeps of an action: a byte of flags, the node in bits 3..4. The task
// word itself is needed only for the members of end components, and is recomputed for them.
constexpr std::uint8_t flag_probabilistic = 1;
constexpr std::uint8_t flag_completes = 2;
constexpr std::uint8_t flag_fair = 4;

inline std::uint32_t task_of(const Label& l, const Outcome& o) {
  std::uint32_t type = 0, fair = fair_bit;
  switch (l.move) {
    case Move::guarded: type = 0; break;
    case Move::unlock: type = 1; break;
    case Move::deliver: type = 2; break;
    case Move::lock: type = 3, fair = 0; break;  // the application may never call Lock
    default: break;
  }
  const std::uint32_t a = l.move == Move::deliver || l.move == Move::guarded ? l.a : 0;
  const std::uint32_t b = l.move == Move::deliver ? l.b : 0;
  return std::uint32_t{l.node} << 16 | type << 12 | a << 8 | b | fair |
         ((o.completed_lock || o.completed_unlock) ? completes_bit : 0);
}

inline std::uint8_t flags_of(const Label& l, const Outcome& o) {
  const std::uint32_t task = task_of(l, o);
  return static_cast<std::uint8_t>((l.probabilistic ? flag_probabilistic : 0) |
                                   ((task & completes_bit) ? flag_completes : 0) | ((task & fair_bit) ? flag_fair : 0) |
                                   (l.node & 3u) << 3);
}

/// The liveness graph: actions of node moves (no topology moves). An action has K targets if it
/// draws a priority (flag_probabilistic) and one otherwise, so a state's targets follow from its
/// actions without an offset per action.
///
/// Targets are stored as a code, not as a number each: a state's targets, in action order, each as
/// its difference from the previous target (from the state itself for the first), zigzag-mapped
/// and written as a prefix varint (the first byte's trailing zeros give the length), with the
/// target's renaming and twisted bit below it under symmetry reduction. Breadth first, the states
/// first found by one state are numbered consecutively, so most differences are small: about 3
/// bytes per target instead of 5 (docs/checker.md, Performance, "A coded liveness graph").
struct Graph {
  BlockOffsets state_begin;    ///< first action of each state (size states+1)
  Column<std::uint8_t> flags;  ///< per action: flags_of
  unsigned k = 2;

  /// A position in the code: reading the targets of one state, in order.
  struct Cursor {
    std::uint64_t pos;
    std::uint32_t prev;  ///< the previous target read (raw: before the sink is substituted)
  };
  /// A target read with its renaming (node_map of the renaming from the successor to the stored
  /// state) and whether the successor had to be renamed at all (both only under symmetry reduction).
  struct Target {
    std::uint32_t to;
    std::uint8_t nodes;
    bool twisted;
  };
  /// A target that becomes the state numbered in finish(), once it is known (the lifted graph's sink).
  static constexpr std::uint32_t sink_target = UINT32_MAX;

  /// Under symmetry reduction, targets carry their node renaming (as an index among the
  /// permutations of `nodes`) and a twisted bit.
  void keep_renamings(unsigned nodes) {
    std::array<std::uint8_t, max_nodes> p{};
    for (unsigned v = 0; v < nodes; ++v) p[v] = static_cast<std::uint8_t>(v);
    perm_map_.clear();
    do {
      unsigned m = 0;
      for (unsigned v = 0; v < nodes; ++v) m |= unsigned{p[v]} << (2 * v);
      perm_index_[m] = static_cast<std::uint8_t>(perm_map_.size());
      perm_map_.push_back(static_cast<std::uint8_t>(m));
    } while (std::next_permutation(p.begin(), p.begin() + nodes));
    unsigned bits = 0;
    while ((std::size_t{1} << bits) < perm_map_.size()) ++bits;
    meta_bits_ = bits + 1;
  }

  /// Keeps the graph in temporary files (Region::keep_in_file), before the first state: during
  /// the exploration, which only appends to it, its pages can leave memory for the stored states.
  void keep_in_files() {
    state_begin.keep_in_file();
    flags.keep_in_file();
    code_.keep_in_file();
    code_begin_.keep_in_file();
  }

  /// Saves the finished graph to files named from `prefix`, after shrink(): the copies need the
  /// disk.
  void save(const std::string& prefix) {
    shrink();
    state_begin.save(prefix + "state_begin");
    flags.save(prefix + "flags.bin");
    code_.save(prefix + "code.bin", 8);  // the 8 readable bytes past the end that next() loads
    code_begin_.save(prefix + "code_begin");
  }
  /// Gives back the columns' spare space (Column::shrink): memory, or with keep_in_files the
  /// disk blocks of files grown by doubling, which hold up to twice the graph.
  void shrink() {
    state_begin.shrink();
    flags.shrink();
    code_.shrink();
    code_begin_.shrink();
  }
  /// Reads back a graph saved by save() (after keep_renamings with the same nodes and with k set),
  /// mapped read-only; finished.
  void load(const std::string& prefix) {
    state_begin.load(prefix + "state_begin");
    flags.load(prefix + "flags.bin");
    code_.load(prefix + "code.bin", 8);
    code_begin_.load(prefix + "code_begin");
    if (state_begin.size() == 0 || code_begin_.size() + 1 != state_begin.size() || state_begin.back() != flags.size())
      throw std::runtime_error("check: the graph saved at " + prefix + " does not match");
    sink_ = sink_target;
  }

  [[nodiscard]] unsigned outcomes(std::uint64_t a) const { return (flags[a] & flag_probabilistic) ? k : 1; }
  [[nodiscard]] std::size_t states() const { return state_begin.size() - 1; }  // after finish()
  [[nodiscard]] std::size_t bytes() const {
    return state_begin.bytes() + flags.size() + code_.size() + code_begin_.bytes();
  }

  /// Starts the actions of the next state.
  void open_state() {
    const std::size_t s = state_begin.size();
    state_begin.push_back(flags.size());
    code_begin_.push_back(code_.size());
    prev_ = static_cast<std::uint32_t>(s);
  }
  /// One node move to `to`: a new action, unless it is a further outcome of a priority draw.
  void add(const Label& l, const Outcome& o, std::uint32_t to, std::uint8_t nodes = 0, bool twisted = false) {
    if (l.prio == 0) flags.push_back(flags_of(l, o));
    put(to, nodes, twisted);
  }
  /// Ends state `self`; if no task was enabled (no node move at all, or only Lock calls, which the
  /// application may never make), time passes: a stutter step, not a task of any node. Returns
  /// whether it added that step. `identity`: node_map of the identity renaming.
  bool close_state(std::uint32_t self, std::uint8_t identity = 0) {
    for (std::size_t a = state_begin.back(); a < flags.size(); ++a)
      if (flags[a] & flag_fair) return false;
    flags.push_back(0);
    put(self, identity, false);
    return true;
  }
  /// Ends the graph (the offsets' final entries); sink_target reads as `sink` from now on.
  void finish(std::uint32_t sink = sink_target) {
    state_begin.push_back(flags.size());
    sink_ = sink;
  }

  /// Appends state `s` of graph `from` (with the same k and renamings) as this graph's next
  /// state, its actions as they are and its targets renumbered by `renumber` (a part of the graph,
  /// numbered apart). The state's stutter step, if any, is copied with it.
  template <class F>
  void copy_state(const Graph& from, std::size_t s, F&& renumber) {
    open_state();
    from.each_action(s, [&](std::uint64_t a, const Target* ts, unsigned m) {
      flags.push_back(from.flags[a]);
      for (unsigned i = 0; i < m; ++i) put(renumber(ts[i].to), ts[i].nodes, ts[i].twisted);
    });
  }

  [[nodiscard]] Cursor first(std::size_t s) const { return {code_begin_[s], static_cast<std::uint32_t>(s)}; }
  /// Reads the next target. Branch-free: the code keeps 8 readable bytes past its end.
  Target next(Cursor& c) const {
    std::uint64_t w;
    std::memcpy(&w, code_.data() + c.pos, 8);
    const unsigned len = static_cast<unsigned>(__builtin_ctzll(w | 0x100)) + 1;  // at most 6 bytes are written
    const std::uint64_t v = (w << (64 - 8 * len)) >> (64 - 8 * len) >> len;
    c.pos += len;
    const auto z = static_cast<std::uint32_t>(v >> meta_bits_);
    c.prev += (z >> 1) ^ (0u - (z & 1u));  // zigzag, modulo 2^32
    const auto meta = static_cast<unsigned>(v & ((1u << meta_bits_) - 1));
    return {c.prev == sink_target ? sink_ : c.prev, meta_bits_ ? perm_map_[meta >> 1] : std::uint8_t{0},
            (meta & 1u) != 0};
  }
  [[nodiscard]] std::uint32_t next_to(Cursor& c) const { return next(c).to; }

  /// Calls f(action, targets, count) for each action of state s.
  template <class F>
  void each_action(std::size_t s, F&& f) const {
    Cursor c = first(s);
    std::array<Target, core::k_max> ts;
    for (std::uint64_t a = state_begin[s]; a < state_begin[s + 1]; ++a) {
      const unsigned m = outcomes(a);
      for (unsigned i = 0; i < m; ++i) ts[i] = next(c);
      f(a, ts.data(), m);
    }
  }
  /// Calls f(target) for each target of state s until f returns false.
  template <class F>
  void each_target(std::size_t s, F&& f) const {
    Cursor c = first(s);
    for (std::uint64_t a = state_begin[s]; a < state_begin[s + 1]; ++a)
      for (unsigned i = outcomes(a); i > 0; --i)
        if (!f(next(c))) return;
  }

 private:
  void put(std::uint32_t to, std::uint8_t nodes, bool twisted) {
    const auto d = static_cast<std::int32_t>(to - prev_);  // modulo 2^32, read back the same way
    prev_ = to;
    const std::uint32_t z = static_cast<std::uint32_t>(d) << 1 ^ static_cast<std::uint32_t>(d >> 31);
    const std::uint64_t meta = meta_bits_ ? (std::uint64_t{perm_index_[nodes]} << 1 | (twisted ? 1u : 0u)) : 0;
    const std::uint64_t v = std::uint64_t{z} << meta_bits_ | meta;
    unsigned len = 1;
    while (len < 8 && (v >> (7 * len)) != 0) ++len;
    code_.append_word((v << len | std::uint64_t{1} << (len - 1)), len);
  }
  Column<std::uint8_t> code_;
  BlockOffsets code_begin_;                     ///< per state: where its targets begin
  std::vector<std::uint8_t> perm_map_;          ///< renaming index -> node_map
  std::array<std::uint8_t, 256> perm_index_{};  ///< node_map -> renaming index
  unsigned meta_bits_ = 0;
  std::uint32_t prev_ = 0;
  std::uint32_t sink_ = sink_target;
};

}  // namespace lmx::check::detail
