//===- CoalesceDialect.td - the coalesce dialect ----------------------------===//
// GEMM and its epilogue ops on memrefs, in destination-passing style.
#ifndef COALESCE_DIALECT
#define COALESCE_DIALECT

include "mlir/IR/OpBase.td"

def Coalesce_Dialect : Dialect {
  let name = "coalesce";
  let summary = "GEMM with fusible epilogues (bias, ReLU, GELU) on memrefs";
  let description = [{
    Ops of the coalesce dialect read their inputs and write their result into a memref
    operand (destination-passing style), so fusion can be seen as the disappearance of an
    intermediate buffer.
  }];
  let cppNamespace = "::mlir::coalesce";
}

class Coalesce_Op<string mnemonic, list<Trait> traits = []> :
    Op<Coalesce_Dialect, mnemonic, traits>;

#endif // COALESCE_DIALECT
