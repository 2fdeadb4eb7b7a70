"""An OpenTelemetry resource detector that tells serving processes apart.

Enable with ``OTEL_EXPERIMENTAL_RESOURCE_DETECTORS=enrich`` (the SDK loads it through the
``opentelemetry_resource_detector`` entry point): host, pid, the torch.distributed ranks of the
launcher's environment and the versions of the engines installed. Needs the OpenTelemetry SDK.
"""

from __future__ import annotations

from opentelemetry.sdk.resources import Resource, ResourceDetector

from enrich.activation.integration import discover
from enrich.telemetry.otel import context_attributes
from enrich.versions import installed_version


class EnrichResourceDetector(ResourceDetector):
    def detect(self) -> Resource:
        attributes = {k: v for k, v in context_attributes().items() if not k.startswith("enrich.value.")}
        for integration in discover():
            version = installed_version(integration.distribution or integration.name)
            if version is not None:
                attributes[f"enrich.engine.{integration.name}.version"] = version
        return Resource(attributes)
