//===- CoalesceOps.td - coalesce dialect ops --------------------------------===//
#ifndef COALESCE_OPS
#define COALESCE_OPS

include "Coalesce/CoalesceDialect.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Coalesce_MatmulOp : Coalesce_Op<"matmul"> {
  let summary = "C = A x B on row-major memrefs";
  let description = [{
    `coalesce.matmul ins(%a, %b) outs(%c)` writes the product of A (MxK) and B (KxN) into
    C (MxN).

    ```mlir
    coalesce.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>)
                    outs(%c : memref<64x16xf32>)
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "A", [MemRead]>:$a,
                       Arg<AnyMemRef, "B", [MemRead]>:$b,
                       Arg<AnyMemRef, "C", [MemWrite]>:$c);
  let assemblyFormat = [{
    `ins` `(` $a `,` $b `:` type($a) `,` type($b) `)` `outs` `(` $c `:` type($c) `)` attr-dict
  }];
  let hasVerifier = 1;
}

#endif // COALESCE_OPS
