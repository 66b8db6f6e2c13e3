#pragma once
// The one loop behind every built-in workload: a list of items that one ItemSpec describes.
// run_range() performs them from that description, and spec() hands the same description to
// the strategies that issue the calls themselves, so there is nothing for the two to disagree
// on. The open and socket workloads only build the description.
#include <string>
#include <string_view>
#include <vector>

#include "fdbench/unique_fd.hpp"
#include "engine/workload.hpp"

namespace fdbench {

class ItemWorkload final : public Workload {
 public:
  // `count` items as `item` describes them; `own_dir` is item.dir_fd when the workload opened
  // the directory itself.
  // `directories`: the user's files by directory (item.dir_of and the names in item.paths),
  // each directory opened and checked before every repetition.
  ItemWorkload(std::string_view name, DescriptorKind kind, ItemSpec item, std::size_t count,
               UniqueFd own_dir = UniqueFd(), const DirectoryTable* directories = nullptr);
  ItemWorkload(const ItemWorkload&) = delete;
  ItemWorkload& operator=(const ItemWorkload&) = delete;
  ~ItemWorkload() override { after_repetition(); }

  [[nodiscard]] std::string_view name() const override { return name_; }
  [[nodiscard]] DescriptorKind kind() const override { return kind_; }
  [[nodiscard]] std::size_t ops() const override { return count_; }
  [[nodiscard]] int descriptors_per_item() const override { return item_.descriptors(); }
  [[nodiscard]] std::string_view unit() const override;
  [[nodiscard]] bool holds_descriptors() const override { return item_.keep_open; }
  [[nodiscard]] int fixed_descriptors() const override {
    return static_cast<int>(dir_fds_.size());
  }
  void before_repetition() override;

  void prepare_range(std::size_t begin, std::size_t end) noexcept override;
  void run_range(std::size_t begin, std::size_t end, Tally& tally) noexcept override;
  void after_repetition() override;
  void set_trace(CallTrace* trace) noexcept override { trace_ = trace; }
  [[nodiscard]] bool traces_calls() const override { return true; }
  [[nodiscard]] CallTrace* trace() const noexcept override { return trace_; }
  [[nodiscard]] ItemSpec spec() const override { return item_; }
  void keep(std::size_t i, int fd) noexcept override;

 private:
  template <int kDescriptors, class Create>
  void each(std::size_t begin, std::size_t end, Tally& tally, Create create) noexcept;
  template <int kDescriptors, class Create>
  void each_traced(std::size_t begin, std::size_t end, Tally& tally, Create create) noexcept;

  std::string_view name_;
  DescriptorKind kind_;
  ItemSpec item_;
  // Closes the directories before_repetition() opened.
  void close_directories() noexcept;

  std::size_t count_;
  UniqueFd own_dir_;
  const DirectoryTable* directories_;
  std::vector<int> dir_fds_;  // one per directory of directories_, open during a repetition
  // keep_open: one slot per descriptor; workers write disjoint slots.
  std::vector<int> held_;
  CallTrace* trace_ = nullptr;
};

}  // namespace fdbench
