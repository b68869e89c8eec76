// ELF32 parsing with every offset, size and index checked before use.
#include "tessera/exe/elf.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace tessera::exe {
namespace {

constexpr uint16_t kEmRiscv = 243;
// A tile program, symbols included, is far smaller; a bigger file is not one of ours.
constexpr uintmax_t kMaxElfBytes = uintmax_t{256} << 20;
constexpr uint16_t kEtExec = 2;
constexpr uint32_t kPtLoad = 1;
constexpr uint32_t kShtSymtab = 2;
constexpr uint32_t kEfRiscvRvc = 0x1;
constexpr uint32_t kEfRiscvFloatAbi = 0x6;
constexpr uint32_t kEfRiscvFloatAbiDouble = 0x4;
constexpr uint32_t kEfRiscvFloatAbiQuad = 0x6;

class Reader {
 public:
  Reader(std::span<const uint8_t> bytes, const std::string& name) : b_(bytes), name_(name) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw ElfError(name_ + ": " + what);
  }
  // Checks that [off, off + len) lies in the file.
  void need(uint64_t off, uint64_t len, const char* what) const {
    if (off > b_.size() || len > b_.size() - off)
      fail(std::string(what) + " at offset " + std::to_string(off) + " (" + std::to_string(len) +
           " bytes) runs past the end of the file (" + std::to_string(b_.size()) + " bytes)");
  }
  template <typename T>
  T get(uint64_t off) const {
    need(off, sizeof(T), "field");
    T v;
    std::memcpy(&v, b_.data() + off, sizeof(T));
    return v;
  }
  std::span<const uint8_t> bytes() const { return b_; }

 private:
  std::span<const uint8_t> b_;
  const std::string& name_;
};

void read_symbols(const Reader& r, ElfImage& image) {
  const uint32_t shoff = r.get<uint32_t>(32);
  const uint16_t shentsize = r.get<uint16_t>(46), shnum = r.get<uint16_t>(48);
  if (shnum == 0) return;  // stripped: no symbols, no tohost
  if (shentsize != 40) r.fail("section header entry size is " + std::to_string(shentsize) + ", expected 40");
  r.need(shoff, uint64_t{shnum} * 40, "section header table");
  for (uint32_t i = 0; i < shnum; ++i) {
    const uint64_t sh = shoff + uint64_t{i} * 40;
    if (r.get<uint32_t>(sh + 4) != kShtSymtab) continue;
    const uint32_t off = r.get<uint32_t>(sh + 16), size = r.get<uint32_t>(sh + 20);
    const uint32_t link = r.get<uint32_t>(sh + 24), entsize = r.get<uint32_t>(sh + 36);
    const std::string where = "symbol table (section " + std::to_string(i) + ")";
    if (entsize != 16) r.fail(where + ": entry size " + std::to_string(entsize) + ", expected 16");
    if (link >= shnum) r.fail(where + ": string table index " + std::to_string(link) + " out of range");
    r.need(off, size, where.c_str());
    const uint64_t str_sh = shoff + uint64_t{link} * 40;
    const uint32_t str_off = r.get<uint32_t>(str_sh + 16), str_size = r.get<uint32_t>(str_sh + 20);
    r.need(str_off, str_size, "string table");
    const char* strtab = reinterpret_cast<const char*>(r.bytes().data() + str_off);
    for (uint32_t s = 0; s + 16 <= size; s += 16) {
      const uint32_t name = r.get<uint32_t>(off + s), value = r.get<uint32_t>(off + s + 4);
      if (name == 0) continue;
      if (name >= str_size) r.fail(where + ": symbol " + std::to_string(s / 16) + " name offset out of range");
      const void* end = std::memchr(strtab + name, 0, str_size - name);
      if (!end) r.fail(where + ": symbol " + std::to_string(s / 16) + " name is not terminated");
      image.symbols.emplace(std::string(strtab + name, static_cast<const char*>(end)), value);
    }
  }
}

}  // namespace

uint32_t ElfImage::symbol(std::string_view name) const {
  auto it = symbols.find(name);
  return it == symbols.end() ? 0 : it->second;
}

ElfImage parse_elf(std::span<const uint8_t> bytes, const std::string& name) {
  Reader r(bytes, name);
  if (bytes.size() < 52) r.fail("too short for an ELF header (" + std::to_string(bytes.size()) + " bytes)");
  if (std::memcmp(bytes.data(), "\x7f" "ELF", 4) != 0) r.fail("not an ELF file (bad magic)");
  if (bytes[4] != 1) r.fail("not a 32-bit ELF (EI_CLASS " + std::to_string(bytes[4]) + "); Tessera tiles are RV32");
  if (bytes[5] != 1) r.fail("not little-endian (EI_DATA " + std::to_string(bytes[5]) + ")");
  if (r.get<uint16_t>(18) != kEmRiscv) r.fail("not a RISC-V ELF (e_machine " + std::to_string(r.get<uint16_t>(18)) + ")");
  if (r.get<uint16_t>(16) != kEtExec) r.fail("not an executable (e_type " + std::to_string(r.get<uint16_t>(16)) + ")");
  const uint32_t flags = r.get<uint32_t>(36);
  if (flags & kEfRiscvRvc) r.fail("built with compressed instructions (RVC), which Tessera tiles do not implement");
  if ((flags & kEfRiscvFloatAbi) == kEfRiscvFloatAbiDouble || (flags & kEfRiscvFloatAbi) == kEfRiscvFloatAbiQuad)
    r.fail("built for a double/quad float ABI; Tessera tiles implement F only (use -mabi=ilp32f)");

  ElfImage image;
  image.entry = r.get<uint32_t>(24);
  const uint32_t phoff = r.get<uint32_t>(28);
  const uint16_t phentsize = r.get<uint16_t>(42), phnum = r.get<uint16_t>(44);
  if (phnum == 0) r.fail("no program headers: nothing to load");
  if (phentsize != 32) r.fail("program header entry size is " + std::to_string(phentsize) + ", expected 32");
  r.need(phoff, uint64_t{phnum} * 32, "program header table");
  for (uint32_t i = 0; i < phnum; ++i) {
    const uint64_t ph = phoff + uint64_t{i} * 32;
    if (r.get<uint32_t>(ph) != kPtLoad) continue;
    const uint32_t off = r.get<uint32_t>(ph + 4), vaddr = r.get<uint32_t>(ph + 8);
    const uint32_t paddr = r.get<uint32_t>(ph + 12);
    const uint32_t filesz = r.get<uint32_t>(ph + 16), memsz = r.get<uint32_t>(ph + 20);
    const std::string where = "program header " + std::to_string(i);
    if (filesz > memsz) r.fail(where + ": file size " + std::to_string(filesz) + " exceeds memory size " + std::to_string(memsz));
    if (uint64_t{paddr} + memsz > (uint64_t{1} << 32)) r.fail(where + ": segment wraps past the end of the address space");
    (void)vaddr;  // bare metal: load at the physical address, as QEMU's loader does
    r.need(off, filesz, (where + " data").c_str());
    if (memsz == 0) continue;
    ElfSegment seg;
    seg.addr = paddr;
    seg.mem_bytes = memsz;
    seg.data.assign(bytes.begin() + off, bytes.begin() + off + filesz);
    image.segments.push_back(std::move(seg));
  }
  if (image.segments.empty()) r.fail("no loadable segment");
  read_symbols(r, image);
  return image;
}

ElfImage read_elf_file(const std::string& path) {
  // A directory opens as a stream and then fails on the first read (an exception from
  // the stream buffer); a device or FIFO may never end: only regular files of a sane size.
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) throw ElfError(path + ": cannot open (no such file)");
  if (std::filesystem::is_directory(status)) throw ElfError(path + ": is a directory, not an ELF file");
  if (!std::filesystem::is_regular_file(status)) throw ElfError(path + ": not a regular file");
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) throw ElfError(path + ": cannot read its size (" + ec.message() + ")");
  if (size > kMaxElfBytes)
    throw ElfError(path + ": " + std::to_string(size) + " bytes, more than any tile program (" +
                   std::to_string(kMaxElfBytes) + ")");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ElfError(path + ": cannot open");
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  if (size && !in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size)))
    throw ElfError(path + ": read error");
  return parse_elf(bytes, path);
}

void place_elf(const ElfImage& image, uint8_t* sram, uint32_t sram_base, uint32_t sram_bytes) {
  for (const ElfSegment& s : image.segments) {
    if (s.addr < sram_base || uint64_t{s.addr} + s.mem_bytes > uint64_t{sram_base} + sram_bytes) {
      char buf[160];
      std::snprintf(buf, sizeof buf,
                    "segment at 0x%08x (%u bytes) lies outside tile SRAM 0x%08x..0x%08x", s.addr,
                    s.mem_bytes, sram_base, sram_base + sram_bytes - 1);
      throw ElfError(buf);
    }
    // An empty segment's data() may be null, which memcpy must not see even for 0 bytes.
    if (!s.data.empty()) std::memcpy(sram + (s.addr - sram_base), s.data.data(), s.data.size());
    std::memset(sram + (s.addr - sram_base) + s.data.size(), 0, s.mem_bytes - s.data.size());
  }
  if (image.entry < sram_base || image.entry - sram_base >= sram_bytes || (image.entry & 3)) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "entry point 0x%08x is not an aligned address in tile SRAM", image.entry);
    throw ElfError(buf);
  }
}

}  // namespace tessera::exe
