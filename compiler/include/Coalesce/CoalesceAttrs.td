//===- CoalesceAttrs.td - epilogue, tile-config and target attributes -------===//
// The attributes a fused kernel carries: which epilogue it applies, which tile config it runs
// with, and which GPU it must fit. Their C++ counterparts are coalesce::Epilogue,
// coalesce::SimtConfig and coalesce::DeviceLimits (kernels/), the one source of validity.
#ifndef COALESCE_ATTRS
#define COALESCE_ATTRS

include "Coalesce/CoalesceDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Coalesce_EpilogueKind : I32EnumAttr<"EpilogueKind",
    "the elementwise chain a fused matmul applies before its one store of C", [
      I32EnumAttrCase<"none", 0>,       // C = A B
      I32EnumAttrCase<"bias", 1>,       // C = A B + bias[n]
      I32EnumAttrCase<"bias_relu", 2>,  // C = max(A B + bias[n], 0)
      I32EnumAttrCase<"bias_gelu", 3>   // C = gelu_erf(A B + bias[n])
    ]> {
  let cppNamespace = "::mlir::coalesce";
  let genSpecializedAttr = 0;
}

def Coalesce_EpilogueKindAttr : EnumAttr<Coalesce_Dialect, Coalesce_EpilogueKind, "epilogue">;

def Coalesce_TileFamily : I32EnumAttr<"TileFamily", "a kernel design with its own tile parameters", [
      I32EnumAttrCase<"simt", 0>  // FP32 CUDA cores, register-tiled (kernels/simt_gemm.cuh)
    ]> {
  let cppNamespace = "::mlir::coalesce";
  let genSpecializedAttr = 0;
}

def Coalesce_TileAttr : AttrDef<Coalesce_Dialect, "Tile"> {
  let mnemonic = "tile";
  let summary = "the tile configuration a fused matmul's kernel is instantiated with";
  let description = [{
    The parameters of coalesce::SimtConfig (kernels/simt_config.hpp): block tile BM x BN x BK,
    warp tile WM x WN, thread tile TM x TN, the depth of the shared-memory pipeline, the floats
    per global-to-shared copy, the block rasterization group, and the blocks per SM asked of
    ptxas (which caps the registers per thread). The attribute verifies with
    SimtConfig::check(), the same rule the tuner prunes with and the kernel static_asserts.

    ```mlir
    #coalesce.tile<simt, bm = 128, bn = 128, bk = 16, wm = 64, wn = 32, tm = 8, tn = 8,
                   stages = 3, vec = 4, group_m = 8, min_blocks = 2>
    ```
  }];
  let parameters = (ins EnumParameter<Coalesce_TileFamily>:$family,
                        "int32_t":$bm, "int32_t":$bn, "int32_t":$bk,
                        "int32_t":$wm, "int32_t":$wn, "int32_t":$tm, "int32_t":$tn,
                        "int32_t":$stages, "int32_t":$vec, "int32_t":$group_m,
                        "int32_t":$min_blocks);
  let assemblyFormat = [{
    `<` $family `,` struct($bm, $bn, $bk, $wm, $wn, $tm, $tn, $stages, $vec, $group_m,
                           $min_blocks) `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The config as the kernels and the tuner spell it.
    ::coalesce::SimtConfig getSimtConfig() const;
    /// The attribute for a simt config.
    static TileAttr get(::mlir::MLIRContext* context, const ::coalesce::SimtConfig& config);
  }];
}

def Coalesce_TargetAttr : AttrDef<Coalesce_Dialect, "Target"> {
  let mnemonic = "target";
  let summary = "the GPU a fused matmul's tile config must fit";
  let description = [{
    The compute capability (90 for sm_90), the opt-in shared memory per block in bytes and the
    32-bit registers per SM. A tile config whose pipeline or register file does not fit is
    rejected by the fused op's verifier. Without a target, the limits are the H200's
    (coalesce::DeviceLimits' defaults).

    ```mlir
    #coalesce.target<sm = 90, smem_per_block = 232448, regs_per_sm = 65536>
    ```
  }];
  let parameters = (ins "int32_t":$sm, "int32_t":$smem_per_block, "int32_t":$regs_per_sm);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The limits a config is checked against. Shared memory per SM is taken as the per-block
    /// opt-in plus the 1 KB the driver reserves per block, as on sm_80 and sm_90.
    ::coalesce::DeviceLimits getDeviceLimits() const;
  }];
}

#endif // COALESCE_ATTRS
