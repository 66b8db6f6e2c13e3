// What sits between fdbench and the hardware: a hypervisor, and the kernel's mitigations of
// CPU vulnerabilities (page-table isolation makes every syscall several times dearer).
#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <string_view>
#include <utility>

#include "platform/platform.hpp"
#include "platform/os.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define FDBENCH_HAVE_CPUID 1
#endif

namespace fdbench::platform {

namespace {

// Names follow systemd-detect-virt, so results compare with what admins already see.
[[maybe_unused]] std::string name_of(
    std::string_view text, std::initializer_list<std::pair<const char*, const char*>> known) {
  for (const auto& [prefix, name] : known) {
    if (text.rfind(prefix, 0) == 0) return name;
  }
  return "";
}

// x86: CPUID says whether a hypervisor is present (leaf 1, ECX bit 31) and which (leaf
// 0x40000000): "none", a name, "vm-other" for one it does not know; nullopt without CPUID.
std::optional<std::string> hypervisor_from_cpuid() {
#if defined(FDBENCH_HAVE_CPUID)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return std::nullopt;
  if ((ecx & (1U << 31)) == 0) return "none";
  __cpuid(0x40000000, eax, ebx, ecx, edx);
  char vendor[13] = {};
  std::memcpy(vendor, &ebx, 4);
  std::memcpy(vendor + 4, &ecx, 4);
  std::memcpy(vendor + 8, &edx, 4);
  const std::string name = name_of(vendor, {{"KVMKVMKVM", "kvm"},
                                            {"Linux KVM Hv", "kvm"},
                                            {"XenVMMXenVMM", "xen"},
                                            {"VMwareVMware", "vmware"},
                                            {"Microsoft Hv", "microsoft"},
                                            {"TCGTCGTCGTCG", "qemu"},
                                            {"bhyve bhyve ", "bhyve"},
                                            {"VBoxVBoxVBox", "oracle"},
                                            {"ACRNACRNACRN", "acrn"},
                                            {" lrpepyh  vr", "parallels"},
                                            {"QNXQVMBSQG", "qnx"}});
  return name.empty() ? "vm-other" : name;
#else
  return std::nullopt;
#endif
}

// Linux: firmware tables (DMI) and the hypervisor's own files, for what CPUID leaves open.
std::string hypervisor_from_files() {
#if defined(FDBENCH_LINUX)
  if (const auto type = read_text_file("/sys/hypervisor/type");
      type && type->rfind("xen", 0) == 0) {
    return "xen";
  }
  if (access("/proc/xen", F_OK) == 0) return "xen";
  for (const char* file : {"product_name", "sys_vendor", "board_vendor", "bios_vendor"}) {
    const auto text = read_text_file(std::string("/sys/class/dmi/id/") + file);
    if (!text) continue;
    std::string name = name_of(*text, {{"KVM", "kvm"},
                                       {"OpenStack", "kvm"},
                                       {"KubeVirt", "kvm"},
                                       {"Amazon EC2", "amazon"},
                                       {"QEMU", "qemu"},
                                       {"VMware", "vmware"},
                                       {"VMW", "vmware"},
                                       {"innotek GmbH", "oracle"},
                                       {"VirtualBox", "oracle"},
                                       {"Xen", "xen"},
                                       {"Bochs", "bochs"},
                                       {"Parallels", "parallels"},
                                       {"BHYVE", "bhyve"},
                                       {"Hyper-V", "microsoft"},
                                       {"Apple Virtualization", "apple"},
                                       {"Google Compute Engine", "google"}});
    if (!name.empty()) return name;
  }
#endif
  return "";
}

}  // namespace

std::string virtualization() {
  const auto cpuid = hypervisor_from_cpuid();
  if (cpuid && *cpuid != "none" && *cpuid != "vm-other") return *cpuid;
  if (std::string named = hypervisor_from_files(); !named.empty()) return named;
  // Only CPUID can say that there is none; elsewhere absence of evidence proves nothing.
  return cpuid.value_or("unknown");
}

std::map<std::string, std::string> read_vulnerabilities(const std::string& dir) {
  std::map<std::string, std::string> status;
  DIR* listing = opendir(dir.c_str());
  if (listing == nullptr) return status;
  while (const dirent* entry = readdir(listing)) {
    if (entry->d_name[0] == '.') continue;
    auto text = read_text_file(dir + "/" + entry->d_name);
    if (!text) continue;
    text->erase(std::min(text->find('\n'), text->size()));
    status[entry->d_name] = *text;
  }
  closedir(listing);
  return status;
}

std::map<std::string, std::string> cpu_mitigations() {
#if defined(FDBENCH_LINUX)
  return read_vulnerabilities("/sys/devices/system/cpu/vulnerabilities");
#else
  return {};
#endif
}

}  // namespace fdbench::platform
