// A device that becomes a machine at configure(): a backend whose machines are built for one
// target and firmware (the emulator, the Verilated RTL) behind the registry's contract. Every
// operation before the first configure() is refused with a DeviceError.
#pragma once

#include <memory>
#include <string>

#include "tessera/device/device.h"

namespace tessera::registry {

class LazyDevice : public device::Device {
 public:
  explicit LazyDevice(std::string what) : what_(std::move(what)) {}

  void configure(std::string_view target, std::span<const std::byte> firmware) override {
    inner_ = build(target, firmware);
  }
  uint32_t read_reg(uint32_t offset) override { return inner().read_reg(offset); }
  void write_reg(uint32_t offset, uint32_t value) override { inner().write_reg(offset, value); }
  void reg_batch(std::span<device::RegOp> ops) override { inner().reg_batch(ops); }
  void dma_write(std::span<const device::DmaSegment> s, std::span<const std::byte> host) override {
    inner().dma_write(s, host);
  }
  void dma_read(std::span<const device::DmaSegment> s, std::span<std::byte> host) override {
    inner().dma_read(s, host);
  }
  void dram_write(uint64_t offset, std::span<const std::byte> data) override { inner().dram_write(offset, data); }
  void dram_to_tiles(std::span<const device::DmaSegment> s) override { inner().dram_to_tiles(s); }
  void tiles_to_dram(std::span<const device::DmaSegment> s) override { inner().tiles_to_dram(s); }
  void dram_read(uint64_t offset, std::span<std::byte> out) override { inner().dram_read(offset, out); }
  uint32_t wait_event(uint32_t mask, std::chrono::milliseconds timeout) override {
    return inner().wait_event(mask, timeout);
  }
  std::string error_detail() const override {
    return inner_ ? inner_->error_detail() : std::string();
  }

  device::Device* inner_or_null() const { return inner_.get(); }

 protected:
  // The machine of `target` running `firmware`; throws DeviceError naming what is wrong.
  virtual std::unique_ptr<device::Device> build(std::string_view target,
                                                std::span<const std::byte> firmware) = 0;

 private:
  device::Device& inner() {
    if (!inner_)
      throw device::DeviceError(what_ +
                                " is not configured yet: call configure(target, firmware) first");
    return *inner_;
  }
  std::string what_;
  std::unique_ptr<device::Device> inner_;
};

}  // namespace tessera::registry
