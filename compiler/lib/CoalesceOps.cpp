//===- CoalesceOps.cpp - coalesce dialect ops and verifiers -----------------===//
// One clear message per broken rule. Tile configs are judged by their family's plug-in
// (kernels/core/family.hpp) through the tile-config interface, never by a copy of its rules.
#include "Coalesce/CoalesceOps.h"

#include "kernels/core/epilogues.hpp"
#include "kernels/core/problem.hpp"

using namespace mlir;
using namespace mlir::coalesce;

// The epilogue as a bare keyword: `coalesce.fused_matmul bias_gelu ins(...)`.
static ParseResult parseEpilogueKind(OpAsmParser& parser, EpilogueKindAttr& epilogue) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword)) return failure();
  std::optional<EpilogueKind> kind = symbolizeEpilogueKind(keyword);
  if (!kind)
    return parser.emitError(loc, "expected an epilogue (" + ::coalesce::epilogue_names() + "), got '")
           << keyword << "'";
  epilogue = EpilogueKindAttr::get(parser.getContext(), *kind);
  return success();
}

static void printEpilogueKind(OpAsmPrinter& printer, Operation*, EpilogueKindAttr epilogue) {
  printer << stringifyEpilogueKind(epilogue.getValue());
}

// The activation of a glu as its op's mnemonic: `coalesce.glu silu ins(...)`.
static ParseResult parseActivationKind(OpAsmParser& parser, ActivationKindAttr& activation) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword)) return failure();
  std::optional<ActivationKind> kind = symbolizeActivationKind(keyword);
  if (!kind) {
    std::string known;
    for (uint32_t i = 0; i <= getMaxEnumValForActivationKind(); ++i)
      if (std::optional<ActivationKind> k = symbolizeActivationKind(i))
        known += (known.empty() ? "" : ", ") + stringifyActivationKind(*k).str();
    return parser.emitError(loc, "expected an activation (" + known + "), got '") << keyword << "'";
  }
  activation = ActivationKindAttr::get(parser.getContext(), *kind);
  return success();
}

static void printActivationKind(OpAsmPrinter& printer, Operation*, ActivationKindAttr activation) {
  printer << stringifyActivationKind(activation.getValue());
}

#define GET_OP_CLASSES
#include "Coalesce/CoalesceOps.cpp.inc"

std::string mlir::coalesce::extentString(int64_t extent) {
  return ShapedType::isDynamic(extent) ? std::string("?") : std::to_string(extent);
}

std::string mlir::coalesce::shapeString(MemRefType type) {
  std::string shape;
  for (int64_t extent : type.getShape()) shape += (shape.empty() ? "" : "x") + extentString(extent);
  return shape;
}

namespace {

MemRefType memrefOf(Value v) { return cast<MemRefType>(v.getType()); }

// Every static extent of the named operands within kMaxExtent (CoalesceOps.h says why). Checked
// before the operands' agreement, so an extent too large for the kernels is named as such, not
// as a mismatch. An operand's element count has no limit here (issue 39): a fused kernel's is
// judged by its tile config's family (simt's 64-bit configs and mma run 2^31 elements and more;
// gemv's and wgmma's rules refuse them), and the runtime refuses a library call's descriptors
// above INT_MAX elements when it is made (compiler/runtime/runtime.cu).
LogicalResult verifyExtents(Operation* op, ArrayRef<std::pair<StringRef, Value>> operands) {
  for (auto [name, value] : operands) {
    if (!value) continue;
    MemRefType type = memrefOf(value);
    for (int64_t extent : type.getShape())
      if (!ShapedType::isDynamic(extent) && extent > kMaxExtent)
        return op->emitOpError("expects each extent of ")
               << name << " (" << shapeString(type) << ") to be at most " << kMaxExtent
               << ", the kernels' int extent limit, got " << extent;
  }
  return success();
}

// Two extents agree unless both are known and differ.
bool extentsAgree(int64_t x, int64_t y) {
  return ShapedType::isDynamic(x) || ShapedType::isDynamic(y) || x == y;
}

// A (MxK) x B (KxN) -> C (MxN): element types and the three shared extents must agree, and C
// must be a buffer of its own, since the kernel reads A and B while it writes C.
// C is M x N, or M x N/2 under a gated epilogue (kernels/core/epilogues.hpp EpilogueReads::gated:
// B's columns are (gate, up) pairs, of which C keeps act(gate) * up), whose static N must be even.
LogicalResult verifyMatmul(Operation* op, Value a, Value b, Value c, bool gated = false) {
  MemRefType ta = memrefOf(a), tb = memrefOf(b), tc = memrefOf(c);
  if (ta.getElementType() != tb.getElementType() || ta.getElementType() != tc.getElementType())
    return op->emitOpError("expects A, B and C to have the same element type");
  if (!extentsAgree(ta.getDimSize(1), tb.getDimSize(0)))
    return op->emitOpError("expects A's columns (K = ")
           << extentString(ta.getDimSize(1)) << ") to equal B's rows (" << extentString(tb.getDimSize(0)) << ")";
  int64_t n = tb.getDimSize(1);
  if (gated && !ShapedType::isDynamic(n)) {
    if (n % 2 != 0)
      return op->emitOpError("expects an even N for a gated epilogue (B's columns are gate and up pairs), got ")
             << extentString(n);
    n /= 2;
  }
  if (!extentsAgree(ta.getDimSize(0), tc.getDimSize(0)) || !extentsAgree(n, tc.getDimSize(1)))
    return op->emitOpError("expects C to be ")
           << extentString(ta.getDimSize(0)) << "x" << extentString(n) << (gated ? " (N/2: gated)" : "") << ", got "
           << shapeString(tc);
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
           << extentString(tm.getDimSize(1)) << " entries, got " << extentString(tb.getDimSize(0));
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
  if (failed(verifyExtents(*this, {{"A", getA()}, {"B", getB()}, {"C", getC()}}))) return failure();
  if (failed(verifyMatmul(*this, getA(), getB(), getC()))) return failure();
  return verifyMath(*this, getA(), getMathAttr());
}

LogicalResult BiasAddOp::verify() {
  if (failed(verifyExtents(*this, {{"X", getInput()}, {"bias", getBias()}, {"Y", getOutput()}})))
    return failure();
  if (failed(verifyElementwise(*this, getInput(), getOutput()))) return failure();
  return verifyBias(*this, getInput(), getBias());
}

template <class ActivationOp>
static LogicalResult verifyActivation(ActivationOp op) {
  if (failed(verifyExtents(op, {{"X", op.getInput()}, {"Y", op.getOutput()}}))) return failure();
  return verifyElementwise(op, op.getInput(), op.getOutput());
}

LogicalResult ReluOp::verify() { return verifyActivation(*this); }
LogicalResult GeluOp::verify() { return verifyActivation(*this); }
LogicalResult GeluTanhOp::verify() { return verifyActivation(*this); }
LogicalResult SiluOp::verify() { return verifyActivation(*this); }

LogicalResult AddOp::verify() {
  if (failed(verifyExtents(*this, {{"X1", getLhs()}, {"X2", getRhs()}, {"Y", getOutput()}}))) return failure();
  if (failed(verifyElementwise(*this, getLhs(), getOutput()))) return failure();
  MemRefType lhs = memrefOf(getLhs()), rhs = memrefOf(getRhs());
  if (lhs.getElementType() != rhs.getElementType())
    return emitOpError("expects X1 and X2 to have the same element type");
  if (!extentsAgree(lhs.getDimSize(0), rhs.getDimSize(0)) || !extentsAgree(lhs.getDimSize(1), rhs.getDimSize(1)))
    return emitOpError("expects X2 to have X1's shape, got ") << shapeString(rhs) << " and " << shapeString(lhs);
  return success();
}

// Y keeps act(gate) * up of each (gate, up) column pair of X: M x N/2, of X's element type. Y
// cannot be X: output j is written while pair j/2's columns, at j and j+1, are still to be read.
LogicalResult GluOp::verify() {
  if (failed(verifyExtents(*this, {{"X", getInput()}, {"Y", getOutput()}}))) return failure();
  MemRefType x = memrefOf(getInput()), y = memrefOf(getOutput());
  if (x.getElementType() != y.getElementType())
    return emitOpError("expects X and Y to have the same element type");
  int64_t n = x.getDimSize(1);
  if (!ShapedType::isDynamic(n)) {
    if (n % 2 != 0)
      return emitOpError("expects an even N for a glu (X's columns are gate and up pairs), got ") << extentString(n);
    n /= 2;
  }
  if (!extentsAgree(x.getDimSize(0), y.getDimSize(0)) || !extentsAgree(n, y.getDimSize(1)))
    return emitOpError("expects Y to be ")
           << extentString(x.getDimSize(0)) << "x" << extentString(n) << " (N/2: gated), got " << shapeString(y);
  if (getInput() == getOutput()) return emitOpError("expects Y to be a buffer other than X");
  return success();
}

::coalesce::Target FusedMatmulOp::getTargetOrDefault() {
  if (TargetAttr target = getTargetAttr()) return target.getTarget();
  return defaultTarget();
}

int mlir::coalesce::coreExtent(int64_t extent) {
  if (ShapedType::isDynamic(extent)) return -1;
  assert(extent >= 0 && extent <= kMaxExtent && "the op verifier bounds static extents by kMaxExtent");
  return static_cast<int>(extent);
}

::coalesce::Problem FusedMatmulOp::getProblem() {
  MemRefType a = memrefOf(getA()), b = memrefOf(getB());
  return {coreExtent(a.getDimSize(0)), coreExtent(b.getDimSize(1)), coreExtent(a.getDimSize(1)),
          dtypeOf(a.getElementType(), getMathAttr()).value_or(::coalesce::Dtype::f32), toCoreEpilogue(getEpilogue())};
}

LogicalResult FusedMatmulOp::verify() {
  if (failed(verifyExtents(
          *this, {{"A", getA()}, {"B", getB()}, {"bias", getBias()}, {"residual", getResidual()}, {"C", getC()}})))
    return failure();
  const ::coalesce::EpilogueSpec& spec = ::coalesce::epilogue_spec(toCoreEpilogue(getEpilogue()));
  if (failed(verifyMatmul(*this, getA(), getB(), getC(), spec.reads.gated))) return failure();
  if (failed(verifyMath(*this, getA(), getMathAttr()))) return failure();
  // The residual operand is there exactly when the registry row reads one: M x N like C, of C's
  // element type, and not C itself (the kernels read R[m][n] through a restrict pointer while they
  // write C).
  if (spec.reads.residual && !getResidual())
    return emitOpError("epilogue '") << spec.name << "' needs a residual operand (M x N, added after the activation)";
  if (!spec.reads.residual && getResidual())
    return emitOpError("epilogue '") << spec.name << "' takes no residual operand";
  if (Value residual = getResidual()) {
    MemRefType tr = memrefOf(residual), tc = memrefOf(getC());
    if (tr.getElementType() != tc.getElementType())
      return emitOpError("expects the residual to have C's element type");
    if (!extentsAgree(tr.getDimSize(0), tc.getDimSize(0)) || !extentsAgree(tr.getDimSize(1), tc.getDimSize(1)))
      return emitOpError("expects the residual to have C's shape (") << shapeString(tc) << "), got " << shapeString(tr);
    if (residual == getC()) return emitOpError("expects C to be a buffer other than the residual");
  }
  bool needsBias = spec.reads.column_bias;
  if (needsBias && !getBias())
    return emitOpError("epilogue '") << stringifyEpilogueKind(getEpilogue())
                                     << "' needs a bias operand";
  if (!needsBias && getBias()) return emitOpError("epilogue '") << spec.name << "' takes no bias operand";
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
  // The family's dtype and epilogue rules hold whatever the shape; its shape rules need static extents.
  ::coalesce::Problem typesOnly = problem;
  if (problem.m < 0 || problem.n < 0 || problem.k < 0) typesOnly.m = typesOnly.n = typesOnly.k = 1;
  ::coalesce::Verdict onProblem = tile.verifyProblem(typesOnly);
  if (!onProblem.ok() && (onProblem.violation == ::coalesce::Violation::dtype ||
                          onProblem.violation == ::coalesce::Violation::epilogue || typesOnly == problem))
    return emitOpError("tile config does not fit the problem ")
           << extentString(memrefOf(getA()).getDimSize(0)) << "x" << extentString(memrefOf(getB()).getDimSize(1))
           << "x" << extentString(memrefOf(getA()).getDimSize(1)) << " " << ::coalesce::to_string(problem.dtype)
           << " (" << ::coalesce::violation_name(onProblem.violation) << "): " << onProblem.why;
  return success();
}
