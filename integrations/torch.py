"""PyTorch: checkpoint loading. CUDA errors (out of memory, illegal access, device-side
asserts) surface anywhere and are recognised where they are caught: an engine seam, the
exception hooks, a logging filter or ``enrich.annotate``."""

from enrich.activation.integration import Integration, Target

integration = Integration(
    name="torch",
    distribution="torch",
    versions=">=2.0",
    targets=(
        Target("load-state-dict", "torch.nn.modules.module", "Module.load_state_dict"),
    ),
)
