//===- CoalesceAttrs.td - epilogue, tile-config and target attributes -------===//
// The attributes a fused kernel carries: which epilogue it applies, which tile config it runs
// with, and which GPU it must fit. Their C++ counterparts are coalesce::Epilogue,
// coalesce::Config with its Family and coalesce::Target (kernels/core/), the one source of
// validity.
#ifndef COALESCE_ATTRS
#define COALESCE_ATTRS

include "Coalesce/CoalesceDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

// The epilogue registry's names and order (kernels/core/epilogues.hpp, kEpilogues); the C++
// conversions go by name (CoalesceAttrs.cpp). Each name is checked: emit_test.cpp converts every
// registry epilogue both ways, tests/lit/ops.mlir and invalid.mlir parse each keyword.
def Coalesce_EpilogueKind : I32EnumAttr<"EpilogueKind",
    "the elementwise chain a fused matmul applies before its one store of C", [
      I32EnumAttrCase<"none", 0>,                // C = A B
      I32EnumAttrCase<"bias", 1>,                // C = A B + bias[n]
      I32EnumAttrCase<"bias_relu", 2>,           // C = max(A B + bias[n], 0)
      I32EnumAttrCase<"bias_gelu", 3>,           // C = gelu_erf(A B + bias[n])
      I32EnumAttrCase<"bias_gelu_tanh", 4>,      // C = gelu_tanh(A B + bias[n])
      I32EnumAttrCase<"bias_silu", 5>,           // C = silu(A B + bias[n])
      I32EnumAttrCase<"bias_gelu_residual", 6>,  // C = R[m][n] + gelu_erf(A B + bias[n])
      I32EnumAttrCase<"swiglu", 7>,              // C[m][j] = silu((A B)[m][2j]) * (A B)[m][2j+1]
      I32EnumAttrCase<"geglu", 8>                // C[m][j] = gelu_erf((A B)[m][2j]) * (A B)[m][2j+1]
    ]> {
  let cppNamespace = "::mlir::coalesce";
  let genSpecializedAttr = 0;
}

def Coalesce_EpilogueKindAttr : EnumAttr<Coalesce_Dialect, Coalesce_EpilogueKind, "epilogue">;

// The activations of the epilogue registry (kernels/core/epilogues.hpp Activation) that an op
// of the dialect applies, each spelled as that op's mnemonic and numbered as the registry's value
// (CoalesceAttrs.cpp checks each number). `coalesce.glu` names its activation with it.
def Coalesce_ActivationKind : I32EnumAttr<"ActivationKind",
    "an activation of the epilogue registry, named by the dialect's op that applies it", [
      I32EnumAttrCase<"relu", 1>,       // Activation::relu
      I32EnumAttrCase<"gelu", 2>,       // Activation::gelu_erf
      I32EnumAttrCase<"gelu_tanh", 3>,  // Activation::gelu_tanh
      I32EnumAttrCase<"silu", 4>        // Activation::silu
    ]> {
  let cppNamespace = "::mlir::coalesce";
  let genSpecializedAttr = 0;
}

def Coalesce_ActivationKindAttr : EnumAttr<Coalesce_Dialect, Coalesce_ActivationKind, "activation">;

def Coalesce_MathKind : I32EnumAttr<"MathKind",
    "how a matmul's multiply-adds are computed when not at the storage type's own precision", [
      // f32 operands rounded to TF32 on the tensor cores. Not spelled `tf32`: MLIR's lexer reads
      // that as the builtin tf32 type, never as an enum keyword.
      I32EnumAttrCase<"tensorfloat32", 1>
    ]> {
  let cppNamespace = "::mlir::coalesce";
  let genSpecializedAttr = 0;
}

// `math = #coalesce.math<tensorfloat32>` on a matmul of f32 memrefs: the problem's dtype is tf32 (f32
// storage, TF32 math). TF32 is a math mode, never an element type.
def Coalesce_MathKindAttr : EnumAttr<Coalesce_Dialect, Coalesce_MathKind, "math"> {
  let assemblyFormat = "`<` $value `>`";
}

def Coalesce_TileConfigInterface : AttrInterface<"TileConfigAttrInterface"> {
  let cppNamespace = "::mlir::coalesce";
  let description = [{
    A kernel family's tile config as the compiler sees it, the way upstream MLIR lets
    `#nvvm.target` and `#rocdl.target` implement one GPU target interface: passes verify,
    name and emit a config through these methods and never name a family. Each answer comes
    from the family's plug-in (kernels/core/family.hpp), the one source of validity.
  }];
  let methods = [
    InterfaceMethod<"The config as the kernels and the tuner spell it.",
      "::coalesce::Config", "getConfig">,
    InterfaceMethod<[{Whether the config's family runs on `target` and the config fits its
      limits with the family's register model; a verdict with the reason if not.}],
      "::coalesce::Verdict", "verifyTarget", (ins "const ::coalesce::Target&":$target)>,
    InterfaceMethod<[{Whether the family computes the problem's types and the config fits its
      shape; a verdict with the reason if not.}],
      "::coalesce::Verdict", "verifyProblem", (ins "const ::coalesce::Problem&":$problem)>,
    InterfaceMethod<"The derived config name (the kernel's symbol and database key).",
      "std::string", "getConfigName", (ins "::coalesce::Dtype":$dtype, "::coalesce::Epilogue":$epilogue)>,
    InterfaceMethod<[{The header the emitted translation unit includes and the statement
      defining the extern "C" kernel `symbol` (one line each).}],
      "std::pair<std::string, std::string>", "emitKernelDefinition",
      (ins "::coalesce::Dtype":$dtype, "::coalesce::Epilogue":$epilogue, "::llvm::StringRef":$symbol)>,
  ];
}

def Coalesce_TileAttr : AttrDef<Coalesce_Dialect, "Tile",
    [DeclareAttrInterfaceMethods<Coalesce_TileConfigInterface>]> {
  let mnemonic = "tile";
  let summary = "the tile configuration a fused matmul's kernel is instantiated with";
  let description = [{
    A config of any registered kernel family (kernels/families.cpp): the family's name, then
    each of its parameters as `name = value`, in any order, all of them. The family's own
    rule (e.g. coalesce::SimtConfig::check(), the same rule the tuner prunes with and the
    kernel static_asserts) verifies it; the printer writes the parameters in the family's
    order. A family plugs in here with no change to the compiler.

    ```mlir
    #coalesce.tile<simt, bm = 128, bn = 128, bk = 16, wm = 64, wn = 32, tm = 8, tn = 8,
                   stages = 3, vec = 4, group_m = 8, min_blocks = 2>
    ```
  }];
  let parameters = (ins StringRefParameter<"kernel family">:$family,
                        ArrayRefParameter<"int32_t", "parameter values in the family's order">:$values);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The attribute for a config of a registered family.
    static TileAttr get(::mlir::MLIRContext* context, const ::coalesce::Config& config);
    /// The config's family (registered: the verifier made sure).
    const ::coalesce::Family& getFamilyPlugin() const;
  }];
}

def Coalesce_TargetAttr : AttrDef<Coalesce_Dialect, "Target"> {
  let mnemonic = "target";
  let summary = "the GPU a fused matmul's tile config must fit";
  let description = [{
    The architecture (`sm_90`, or `sm_90a` where the code may use the architecture-specific
    instructions such as wgmma), the opt-in shared memory per block in bytes and the 32-bit
    registers per SM. A tile config whose family does not run there, or whose pipeline or
    register file does not fit, is rejected by the fused op's verifier. Without a target, the
    target is the H200 (`sm_90a` and coalesce::DeviceLimits' defaults).

    ```mlir
    #coalesce.target<arch = "sm_90a", smem_per_block = 232448, regs_per_sm = 65536>
    ```
  }];
  let parameters = (ins StringRefParameter<"architecture">:$arch, "int32_t":$smem_per_block,
                        "int32_t":$regs_per_sm);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The target a config is checked against. Shared memory per SM is taken as the per-block
    /// opt-in plus the 1 KB the driver reserves per block, as on sm_80 and sm_90.
    ::coalesce::Target getTarget() const;
  }];
}

#endif // COALESCE_ATTRS
