// Storage of the exploration: memory regions that grow by remapping or live in files, columns of
// values, and offsets in two bytes per state (docs/checker.md, Performance). Internal to lmx::check.
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
#include <utility>
#include <vector>

#include "checksum.hpp"

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

/// Writes all `n` bytes at `p` to `fd`; false on an error (a full disk), with errno saying which.
inline bool write_all(int fd, const void* p, std::size_t n) {
  const auto* bytes = static_cast<const std::uint8_t*>(p);
  while (n > 0) {
    const ssize_t written = ::write(fd, bytes, std::min<std::size_t>(n, std::size_t{1} << 30));
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) {
      if (written == 0) errno = EIO;
      return false;
    }
    bytes += written, n -= static_cast<std::size_t>(written);
  }
  return true;
}

/// Opens the file at `path` for reading and gives its size; throws, naming it, if it cannot.
inline int open_file(const std::string& path, std::size_t& bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (fd < 0 || fstat(fd, &st) != 0) {
    const int error = errno;
    if (fd >= 0) close(fd);
    throw std::runtime_error("check: cannot read " + path + ": " + std::strerror(error));
  }
  bytes = static_cast<std::size_t>(st.st_size);
  return fd;
}

/// The files of a checkpoint, written into one directory each whole or not at all: a file's bytes
/// go to NAME.part, every write checked, are flushed to the disk, and only then is it renamed to
/// NAME; the size and checksum of each are kept for the header (docs/checker.md, "The
/// checkpoint's format"). Any failure throws an error that names the file and says why, and
/// leaves no NAME.part behind.
class FileSet {
 public:
  struct Entry {
    std::string name;
    std::uint64_t bytes = 0;
    std::uint64_t checksum = 0;
  };

  /// One file, written piece by piece, then committed.
  class Writer {
   public:
    Writer(FileSet& set, std::string name) : set_(set), name_(std::move(name)) {
      fd_ = ::open(part_path().c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (fd_ < 0) fail("cannot create");
    }
    Writer(const Writer&) = delete;
    Writer& operator=(const Writer&) = delete;
    ~Writer() {
      if (fd_ < 0) return;  // committed (or never opened)
      close(fd_);
      ::unlink(part_path().c_str());
    }
    void write(const void* p, std::size_t n) {
      if (!write_all(fd_, p, n)) fail("cannot write");
      sum_.update(p, n);
      bytes_ += n;
    }
    /// Flushes the file to the disk, closes it and gives it its name.
    void commit() {
      if (fsync(fd_) != 0) fail("cannot write");
      const int fd = fd_;
      fd_ = -1;
      if (close(fd) != 0) {
        const int error = errno;
        ::unlink(part_path().c_str());
        errno = error;
        fail("cannot write");
      }
      if (std::rename(part_path().c_str(), (set_.dir_ + "/" + name_).c_str()) != 0) {
        const int error = errno;
        ::unlink(part_path().c_str());
        errno = error;
        fail("cannot rename to its name");
      }
      set_.entries_.push_back(Entry{name_, bytes_, sum_.digest()});
    }

   private:
    [[nodiscard]] std::string part_path() const { return set_.dir_ + "/" + name_ + ".part"; }
    [[noreturn]] void fail(const char* what) const {
      throw std::runtime_error("check: " + std::string(what) + " " + set_.dir_ + "/" + name_ + ": " +
                               std::strerror(errno));
    }
    FileSet& set_;
    std::string name_;
    int fd_ = -1;
    Checksum sum_;
    std::uint64_t bytes_ = 0;
  };

  explicit FileSet(std::string dir) : dir_(std::move(dir)) {}
  /// Writes the file NAME: `n` bytes at `p`, then `pad` zero bytes.
  void write(const std::string& name, const void* p, std::size_t n, std::size_t pad = 0) {
    static constexpr std::array<std::uint8_t, 64> zeros{};
    if (pad > zeros.size()) throw std::logic_error("check: a file's padding is too long");
    Writer w(*this, name);
    w.write(p, n);
    w.write(zeros.data(), pad);
    w.commit();
  }
  /// Flushes the directory itself to the disk, so that the renames are there too.
  void sync_directory() const {
    const int fd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    const bool ok = fd >= 0 && fsync(fd) == 0;
    const int error = errno;
    if (fd >= 0) close(fd);
    if (!ok) throw std::runtime_error("check: cannot write " + dir_ + ": " + std::strerror(error));
  }
  [[nodiscard]] const std::string& dir() const { return dir_; }
  [[nodiscard]] const std::vector<Entry>& entries() const { return entries_; }

 private:
  std::string dir_;
  std::vector<Entry> entries_;
};

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
  /// Writes the values to the file `name` of a checkpoint, then `pad` zero bytes.
  void save(FileSet& out, const std::string& name, std::size_t pad = 0) const {
    out.write(name, data(), size_ * sizeof(T), pad);
  }
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
  /// Writes every value to the file `name` of a checkpoint.
  void save(FileSet& out, const std::string& name) {
    if (fd_ < 0) return memory_.save(out, name);
    flush();
    FileSet::Writer w(out, name);
    std::vector<std::uint8_t> chunk(std::size_t{1} << 20);
    for (std::size_t at = 0, total = flushed_ * sizeof(T); at < total;) {
      const ssize_t got = pread(fd_, chunk.data(), std::min(chunk.size(), total - at), static_cast<off_t>(at));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) throw std::runtime_error("check: cannot read back the temporary file of parent links");
      w.write(chunk.data(), static_cast<std::size_t>(got));
      at += static_cast<std::size_t>(got);
    }
    w.commit();
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
    if (i % block == 0) blocks_.push_back(Block{v, no_segment, 0});
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
  /// Saves the offsets to three files of a checkpoint: `prefix` plus ".blocks", ".narrow" and ".wide".
  void save(FileSet& out, const std::string& prefix) const {
    out.write(prefix + ".blocks", blocks_.data(), blocks_.size() * sizeof(Block));
    narrow_.save(out, prefix + ".narrow");
    wide_.save(out, prefix + ".wide");
  }
  /// Reads back what save wrote: the blocks into memory, the values mapped read-only. Throws if
  /// the files do not fit together: a block count that is not the values', a wide block's segment
  /// outside the wide values (so that reading any offset stays inside them). Whether the offsets
  /// are non-decreasing is for verify().
  void load(const std::string& prefix) {
    Column<Block> blocks;
    blocks.load(prefix + ".blocks");
    narrow_.load(prefix + ".narrow");
    wide_.load(prefix + ".wide");
    if (blocks.size() != (narrow_.size() + block - 1) / block || wide_.size() % block != 0)
      throw std::runtime_error("check: the offsets saved at " + prefix + " do not match");
    blocks_.assign(blocks.data(), blocks.data() + blocks.size());
    for (const Block& b : blocks_)
      if (b.segment != no_segment && b.segment >= wide_.size() / block)
        throw std::runtime_error("check: the offsets saved at " + prefix + " do not match");
  }
  /// Whether the offsets are non-decreasing, begin at `first` and end at most at `last`.
  [[nodiscard]] bool verify(std::uint64_t first, std::uint64_t last) const {
    if (size() == 0 || (*this)[0] != first) return false;
    std::uint64_t previous = first;
    for (std::size_t i = 0; i < size(); ++i) {
      const std::uint64_t v = (*this)[i];
      if (v < previous || v > last) return false;
      previous = v;
    }
    return true;
  }

 private:
  static constexpr std::uint32_t no_segment = UINT32_MAX;
  struct Block {
    std::uint64_t base;
    std::uint32_t segment;     ///< its 32-bit differences in wide_, from segment * block; or no_segment
    std::uint32_t unused = 0;  ///< saved as it is: so that a save's bytes are the same every time
  };
  std::vector<Block> blocks_;
  Column<std::uint16_t> narrow_;
  Column<std::uint32_t> wide_;
};

}  // namespace lmx::check::detail
