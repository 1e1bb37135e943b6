//===- CoalesceAttrs.cpp - epilogue, tile-config and target attributes ------===//
// The attributes delegate validity to the kernel families' plug-ins (kernels/core/family.hpp):
// nothing here re-states a rule.
#include "Coalesce/CoalesceAttrs.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

#include "Coalesce/CoalesceDialect.h"

using namespace mlir;
using namespace mlir::coalesce;

#include "Coalesce/CoalesceEnums.cpp.inc"

#include "Coalesce/CoalesceAttrInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "Coalesce/CoalesceAttrs.cpp.inc"

void CoalesceDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "Coalesce/CoalesceAttrs.cpp.inc"
      >();
}

namespace mlir::coalesce {

// Both lists are the epilogue registry's names (CoalesceAttrs.td): converted by name.
::coalesce::Epilogue toCoreEpilogue(EpilogueKind kind) {
  std::optional<::coalesce::Epilogue> e = ::coalesce::parse_epilogue(stringifyEpilogueKind(kind).str());
  if (!e) llvm_unreachable("every EpilogueKind is a registry epilogue");
  return *e;
}

EpilogueKind fromCoreEpilogue(::coalesce::Epilogue epilogue) {
  std::optional<EpilogueKind> kind = symbolizeEpilogueKind(::coalesce::to_string(epilogue));
  if (!kind) llvm_unreachable("every registry epilogue is an EpilogueKind");
  return *kind;
}

// ActivationKind numbers its cases as the registry's Activation (CoalesceAttrs.td).
static_assert(static_cast<int>(ActivationKind::relu) == static_cast<int>(::coalesce::Activation::relu) &&
              static_cast<int>(ActivationKind::gelu) == static_cast<int>(::coalesce::Activation::gelu_erf) &&
              static_cast<int>(ActivationKind::gelu_tanh) == static_cast<int>(::coalesce::Activation::gelu_tanh) &&
              static_cast<int>(ActivationKind::silu) == static_cast<int>(::coalesce::Activation::silu));

::coalesce::Activation toCoreActivation(ActivationKind kind) {
  return static_cast<::coalesce::Activation>(static_cast<int>(kind));
}

std::optional<ActivationKind> fromCoreActivation(::coalesce::Activation activation) {
  return symbolizeActivationKind(static_cast<uint32_t>(activation));
}

std::optional<::coalesce::Epilogue> registryEpilogue(::coalesce::EpilogueReads reads,
                                                     ::coalesce::Activation activation) {
  for (const ::coalesce::EpilogueSpec& row : ::coalesce::kEpilogues)
    if (row.reads.column_bias == reads.column_bias && row.reads.residual == reads.residual &&
        row.reads.gated == reads.gated && row.activation == activation)
      return row.id;
  return std::nullopt;
}

std::optional<::coalesce::Dtype> dtypeOf(Type elementType, MathKindAttr math) {
  if (elementType.isF32()) return math ? ::coalesce::Dtype::tf32 : ::coalesce::Dtype::f32;
  if (math) return std::nullopt;
  if (elementType.isBF16()) return ::coalesce::Dtype::bf16;
  if (elementType.isF16()) return ::coalesce::Dtype::f16;
  return std::nullopt;
}

::coalesce::Target defaultTarget() { return {9, 0, true, ::coalesce::DeviceLimits{}}; }

}  // namespace mlir::coalesce

//===----------------------------------------------------------------------===//
// TileAttr
//===----------------------------------------------------------------------===//

// #coalesce.tile<family, name = value, ...>: every parameter of the family exactly once, except
// that one with an unnamed value (ParamSpec::unnamed, e.g. split = 1) may be left out and then
// has that value, as in config names.
Attribute TileAttr::parse(AsmParser& parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef familyName;
  if (parser.parseLess() || parser.parseKeyword(&familyName)) return {};
  const ::coalesce::Family* family = ::coalesce::find_family(familyName.str());
  if (!family) {
    parser.emitError(loc) << "unknown kernel family '" << familyName
                          << "' (known: " << ::coalesce::family_names() << ")";
    return {};
  }
  auto params = family->params();
  SmallVector<int32_t> values(params.size(), 0);
  SmallVector<bool> seen(params.size(), false);
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc keyLoc = parser.getCurrentLocation();
    StringRef key;
    int32_t value = 0;
    if (parser.parseKeyword(&key) || parser.parseEqual() || parser.parseInteger(value)) return {};
    std::size_t index = 0;
    while (index < params.size() && params[index].name != std::string_view(key.data(), key.size())) ++index;
    if (index == params.size()) {
      parser.emitError(keyLoc) << "the " << familyName << " family has no parameter '" << key << "'";
      return {};
    }
    if (seen[index]) {
      parser.emitError(keyLoc) << "parameter '" << key << "' is given twice";
      return {};
    }
    seen[index] = true;
    values[index] = value;
  }
  if (parser.parseGreater()) return {};
  for (std::size_t i = 0; i < params.size(); ++i)
    if (!seen[i] && params[i].unnamed != ::coalesce::kAlwaysNamed) {
      values[i] = params[i].unnamed;
    } else if (!seen[i]) {
      parser.emitError(loc) << "the " << familyName << " tile is missing parameter '"
                            << params[i].name << "'";
      return {};
    }
  return parser.getChecked<TileAttr>(loc, parser.getContext(), familyName, values);
}

void TileAttr::print(AsmPrinter& printer) const {
  printer << "<" << getFamily();
  auto params = getFamilyPlugin().params();
  for (std::size_t i = 0; i < params.size(); ++i)
    if (getValues()[i] != params[i].unnamed) printer << ", " << params[i].name << " = " << getValues()[i];
  printer << ">";
}

TileAttr TileAttr::get(MLIRContext* context, const ::coalesce::Config& config) {
  SmallVector<int32_t> values(config.values.begin(), config.values.end());
  return get(context, config.family, values);
}

const ::coalesce::Family& TileAttr::getFamilyPlugin() const {
  return *::coalesce::find_family(getFamily().str());
}

// A config is legal for its family by the family's device-free rule alone; the device limits
// and the problem are the fused op's to check, since only the op knows its target and shapes.
LogicalResult TileAttr::verify(function_ref<InFlightDiagnostic()> emitError, StringRef familyName,
                               ArrayRef<int32_t> values) {
  const ::coalesce::Family* family = ::coalesce::find_family(familyName.str());
  if (!family)
    return emitError() << "unknown kernel family '" << familyName << "' (known: " << ::coalesce::family_names()
                       << ")";
  if (values.size() != family->params().size())
    return emitError() << "a " << familyName << " tile has " << family->params().size() << " parameters, not "
                       << values.size();
  ::coalesce::Verdict verdict = family->check({familyName.str(), {values.begin(), values.end()}});
  if (!verdict.ok())
    return emitError() << "invalid " << familyName << " tile config ("
                       << ::coalesce::violation_name(verdict.violation) << "): " << verdict.why;
  return success();
}

::coalesce::Config TileAttr::getConfig() const {
  return {getFamily().str(), {getValues().begin(), getValues().end()}};
}

::coalesce::Verdict TileAttr::verifyTarget(const ::coalesce::Target& target) const {
  const ::coalesce::Family& family = getFamilyPlugin();
  if (::coalesce::Verdict v = family.supports(target); !v.ok()) return v;
  const ::coalesce::Config config = getConfig();
  return family.check(config, target.limits, family.predict(config, target.limits).registers);
}

::coalesce::Verdict TileAttr::verifyProblem(const ::coalesce::Problem& problem) const {
  const ::coalesce::Family& family = getFamilyPlugin();
  if (::coalesce::Verdict v = family.supports(problem.dtype); !v.ok()) return v;
  // The epilogue's operands and store (a gated one needs a family that stores it, and an even N).
  if (::coalesce::Verdict v = ::coalesce::supports_epilogue(family, problem); !v.ok()) return v;
  return family.check_problem(getConfig(), problem);
}

std::string TileAttr::getConfigName(::coalesce::Dtype dtype, ::coalesce::Epilogue epilogue) const {
  return ::coalesce::config_name(getConfig(), dtype, epilogue);
}

std::pair<std::string, std::string> TileAttr::emitKernelDefinition(::coalesce::Dtype dtype,
                                                                   ::coalesce::Epilogue epilogue,
                                                                   StringRef symbol) const {
  const ::coalesce::Family& family = getFamilyPlugin();
  return {std::string(family.kernel_header()), family.define_kernel(getConfig(), dtype, epilogue, symbol.str())};
}

//===----------------------------------------------------------------------===//
// TargetAttr
//===----------------------------------------------------------------------===//

namespace {
// "sm_90" -> {9, 0, false}, "sm_90a" -> {9, 0, true}; nullopt for anything else.
std::optional<::coalesce::Target> parseArch(StringRef arch) {
  if (!arch.consume_front("sm_")) return std::nullopt;
  bool specific = arch.consume_back("a");
  unsigned number = 0;
  if (arch.size() < 2 || arch.getAsInteger(10, number) || number < 10) return std::nullopt;
  ::coalesce::Target t;
  t.cc_major = static_cast<int>(number / 10);
  t.cc_minor = static_cast<int>(number % 10);
  t.arch_specific = specific;
  return t;
}
}  // namespace

LogicalResult TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError, StringRef arch,
                                 int32_t smemPerBlock, int32_t regsPerSm) {
  if (!parseArch(arch))
    return emitError() << "target arch must read sm_<major><minor>, optionally followed by 'a' (e.g. sm_90a), not '"
                       << arch << "'";
  if (smemPerBlock <= 0 || regsPerSm <= 0)
    return emitError() << "target smem_per_block and regs_per_sm must be positive";
  return success();
}

::coalesce::Target TargetAttr::getTarget() const {
  ::coalesce::Target target = *parseArch(getArch());
  target.limits.smem_per_block_optin = getSmemPerBlock();
  target.limits.smem_per_sm = getSmemPerBlock() + 1024;
  target.limits.regs_per_sm = getRegsPerSm();
  return target;
}
