"""OpenTelemetry: the sink that turns enrichments into span events, log records and metrics,
its rate limit, and the resource detector. The OpenTelemetry API only; no SDK is imported."""
