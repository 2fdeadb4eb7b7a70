"""Triton: kernel compilation and the first load of a compiled kernel (where shared memory
and thread limits are checked). Both run once per kernel specialisation, never per launch;
later launches of a kernel that failed to load re-raise a copy, recognised by its message."""

from enrich.activation.integration import Integration, Target

integration = Integration(
    name="triton",
    distribution="triton",
    versions=">=3.0",
    targets=(
        Target("compile", "triton.compiler.compiler", "compile"),
        Target("kernel-load", "triton.compiler.compiler", "CompiledKernel._init_handles"),
    ),
)
