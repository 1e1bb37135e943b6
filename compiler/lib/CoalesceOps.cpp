//===- CoalesceOps.cpp - coalesce dialect ops and verifiers -----------------===//
// One clear message per broken rule. Tile configs are judged by their family's plug-in
// (kernels/core/family.hpp) through the tile-config interface, never by a copy of its rules.
#include "Coalesce/CoalesceOps.h"

using namespace mlir;
using namespace mlir::coalesce;

// The epilogue as a bare keyword: `coalesce.fused_matmul bias_gelu ins(...)`.
static ParseResult parseEpilogueKind(OpAsmParser& parser, EpilogueKindAttr& epilogue) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword)) return failure();
  std::optional<EpilogueKind> kind = symbolizeEpilogueKind(keyword);
  if (!kind)
    return parser.emitError(loc, "expected an epilogue (none, bias, bias_relu, bias_gelu), got '")
           << keyword << "'";
  epilogue = EpilogueKindAttr::get(parser.getContext(), *kind);
  return success();
}

static void printEpilogueKind(OpAsmPrinter& printer, Operation*, EpilogueKindAttr epilogue) {
  printer << stringifyEpilogueKind(epilogue.getValue());
}

#define GET_OP_CLASSES
#include "Coalesce/CoalesceOps.cpp.inc"

namespace {

MemRefType memrefOf(Value v) { return cast<MemRefType>(v.getType()); }

// Two extents agree unless both are known and differ.
bool extentsAgree(int64_t x, int64_t y) {
  return ShapedType::isDynamic(x) || ShapedType::isDynamic(y) || x == y;
}

// A (MxK) x B (KxN) -> C (MxN): element types and the three shared extents must agree, and C
// must be a buffer of its own, since the kernel reads A and B while it writes C.
LogicalResult verifyMatmul(Operation* op, Value a, Value b, Value c) {
  MemRefType ta = memrefOf(a), tb = memrefOf(b), tc = memrefOf(c);
  if (ta.getElementType() != tb.getElementType() || ta.getElementType() != tc.getElementType())
    return op->emitOpError("expects A, B and C to have the same element type");
  if (!extentsAgree(ta.getDimSize(1), tb.getDimSize(0)))
    return op->emitOpError("expects A's columns (K = ")
           << ta.getDimSize(1) << ") to equal B's rows (" << tb.getDimSize(0) << ")";
  if (!extentsAgree(ta.getDimSize(0), tc.getDimSize(0)) ||
      !extentsAgree(tb.getDimSize(1), tc.getDimSize(1)))
    return op->emitOpError("expects C to be ")
           << ta.getDimSize(0) << "x" << tb.getDimSize(1) << ", got " << tc.getDimSize(0) << "x"
           << tc.getDimSize(1);
  if (c == a || c == b) return op->emitOpError("expects C to be a buffer other than A and B");
  return success();
}

// A bias holds one entry per column of the MxN matrix it is added to.
LogicalResult verifyBias(Operation* op, Value matrix, Value bias) {
  MemRefType tm = memrefOf(matrix), tb = memrefOf(bias);
  if (tb.getElementType() != tm.getElementType())
    return op->emitOpError("expects the bias to have the matrix's element type");
  if (!extentsAgree(tb.getDimSize(0), tm.getDimSize(1)))
    return op->emitOpError("expects a bias of N = ")
           << tm.getDimSize(1) << " entries, got " << tb.getDimSize(0);
  return success();
}

// An elementwise op writes a result of its input's shape and element type.
LogicalResult verifyElementwise(Operation* op, Value input, Value output) {
  MemRefType ti = memrefOf(input), to = memrefOf(output);
  if (ti.getElementType() != to.getElementType())
    return op->emitOpError("expects X and Y to have the same element type");
  if (!extentsAgree(ti.getDimSize(0), to.getDimSize(0)) ||
      !extentsAgree(ti.getDimSize(1), to.getDimSize(1)))
    return op->emitOpError("expects Y to have X's shape");
  return success();
}

}  // namespace

// TF32 is a math mode of f32 data: it rounds f32 operands, and 16-bit operands have no TF32 form.
LogicalResult verifyMath(Operation* op, Value a, MathKindAttr math) {
  if (math && !memrefOf(a).getElementType().isF32())
    return op->emitOpError("asks for TF32 math on element type ")
           << memrefOf(a).getElementType() << "; TF32 rounds f32 operands only";
  return success();
}

LogicalResult MatmulOp::verify() {
  if (failed(verifyMatmul(*this, getA(), getB(), getC()))) return failure();
  return verifyMath(*this, getA(), getMathAttr());
}

LogicalResult BiasAddOp::verify() {
  if (failed(verifyElementwise(*this, getInput(), getOutput()))) return failure();
  return verifyBias(*this, getInput(), getBias());
}

LogicalResult ReluOp::verify() { return verifyElementwise(*this, getInput(), getOutput()); }

LogicalResult GeluOp::verify() { return verifyElementwise(*this, getInput(), getOutput()); }

::coalesce::Target FusedMatmulOp::getTargetOrDefault() {
  if (TargetAttr target = getTargetAttr()) return target.getTarget();
  return defaultTarget();
}

::coalesce::Problem FusedMatmulOp::getProblem() {
  MemRefType a = memrefOf(getA()), b = memrefOf(getB());
  auto extent = [](int64_t e) { return ShapedType::isDynamic(e) ? -1 : static_cast<int>(e); };
  return {extent(a.getDimSize(0)), extent(b.getDimSize(1)), extent(a.getDimSize(1)),
          dtypeOf(a.getElementType(), getMathAttr()).value_or(::coalesce::Dtype::f32), toCoreEpilogue(getEpilogue())};
}

LogicalResult FusedMatmulOp::verify() {
  if (failed(verifyMatmul(*this, getA(), getB(), getC()))) return failure();
  if (failed(verifyMath(*this, getA(), getMathAttr()))) return failure();
  bool needsBias = getEpilogue() != EpilogueKind::none;
  if (needsBias && !getBias())
    return emitOpError("epilogue '") << stringifyEpilogueKind(getEpilogue())
                                     << "' needs a bias operand";
  if (!needsBias && getBias()) return emitOpError("epilogue 'none' takes no bias operand");
  if (getBias() && failed(verifyBias(*this, getC(), getBias()))) return failure();

  TileConfigAttrInterface tile = getTileAttr();
  if (!tile) return success();
  Type element = memrefOf(getA()).getElementType();
  if (!dtypeOf(element))
    return emitOpError("has element type ") << element << ", which no kernel family computes (f32, bf16, f16)";
  ::coalesce::Problem problem = getProblem();
  ::coalesce::Verdict onTarget = tile.verifyTarget(getTargetOrDefault());
  if (!onTarget.ok())
    return emitOpError("tile config does not fit the target (")
           << ::coalesce::violation_name(onTarget.violation) << "): " << onTarget.why;
  // The family's dtype rule holds whatever the shape; its shape rules need static extents.
  ::coalesce::Problem typesOnly = problem;
  if (problem.m < 0 || problem.n < 0 || problem.k < 0) typesOnly.m = typesOnly.n = typesOnly.k = 1;
  ::coalesce::Verdict onProblem = tile.verifyProblem(typesOnly);
  if (!onProblem.ok() && (onProblem.violation == ::coalesce::Violation::dtype || typesOnly == problem))
    return emitOpError("tile config does not fit the problem ")
           << problem.m << "x" << problem.n << "x" << problem.k << " " << ::coalesce::to_string(problem.dtype)
           << " (" << ::coalesce::violation_name(onProblem.violation) << "): " << onProblem.why;
  return success();
}
