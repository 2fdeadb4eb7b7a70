"""mlx-lm (and mlx's Module.load_weights, through which it loads every checkpoint)."""

from enrich.activation.integration import Integration, Target

integration = Integration(
    name="mlx-lm",
    distribution="mlx-lm",
    versions=">=0.20",
    targets=(
        Target("load", "mlx_lm.utils", "load"),
        Target("load-model", "mlx_lm.utils", "load_model"),
        Target("load-weights", "mlx.nn.layers.base", "Module.load_weights"),
    ),
)
