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
    intermediate buffer. Memrefs are row-major; the library lowering passes them to kernels
    that run on the GPU, so every buffer a coalesce op touches lives in device memory.
  }];
  let cppNamespace = "::mlir::coalesce";
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    /// Adds the attributes (CoalesceAttrs.cpp, where their storage classes are complete).
    void registerAttributes();
  }];
}

class Coalesce_Op<string mnemonic, list<Trait> traits = []> :
    Op<Coalesce_Dialect, mnemonic, traits>;

#endif // COALESCE_DIALECT
