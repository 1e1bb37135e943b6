// The built-in kernel families. Adding a family is its folder under kernels/ plus one line here
// (docs/families.md).
#include <vector>

#include "kernels/core/family.hpp"
#include "kernels/gemv/family.hpp"
#include "kernels/mma/family.hpp"
#include "kernels/simt/family.hpp"
#include "kernels/wgmma/family.hpp"

namespace coalesce {

std::vector<const Family*>& builtin_family_list() {
  static std::vector<const Family*> list = {
      &simt_family(),
      &mma_family(),
      &wgmma_family(),
      &gemv_family(),
  };
  return list;
}

}  // namespace coalesce
