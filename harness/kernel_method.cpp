// Kernels of any family as Methods (see kernel_method.hpp), launched through the one launch
// contract (launch.hpp).
#include "kernel_method.hpp"

#include <memory>
#include <utility>

#include "cuda_raii.hpp"
#include "device.hpp"
#include "launch.hpp"

namespace coalesce {

Method kernel_method(const Config& config, Epilogue epilogue, const void* kernel, Workspace& ws) {
  Problem named = ws.problem();
  named.epilogue = epilogue;
  const Target target = current_target();
  const LaunchPlan plan = plan_launch(config, named, target);
  prepare_kernel(plan, kernel, target);

  // The workspace lives as long as the launch closure; what must start at zero is zeroed here,
  // once, outside any timed region (the kernel leaves it zero).
  std::shared_ptr<DeviceBuffer<float>> workspace;
  if (plan.workspace_bytes > 0) {
    workspace = std::make_shared<DeviceBuffer<float>>(static_cast<std::size_t>((plan.workspace_bytes + 3) / 4));
    zero_workspace(plan, workspace->get(), nullptr);
  }
  const BoundLaunch launch(plan, kernel,
                           LaunchBuffers{ws.a(), ws.b(), ws.bias(), ws.c(), workspace ? workspace->get() : nullptr, ws.residual()});

  Method m;
  m.method = "coalesce";
  m.family = config.family;
  m.config = plan.name;
  m.reference_epilogue = epilogue;
  m.workspace_bytes = plan.workspace_bytes;
  m.deterministic = true;  // every family's schedule is (docs/families.md)
  m.launch = [launch, workspace](cudaStream_t stream) { launch.enqueue(stream); };
  return m;
}

}  // namespace coalesce
