"""The Hugging Face Hub out of reach, for real: requests through a proxy that refuses, on CPU and
with no network (releases of transformers and huggingface_hub before httpx let requests' error out)."""

import io
import traceback

import pytest

requests = pytest.importorskip("requests")

import enrich  # noqa: E402
from enrich.logs import findings  # noqa: E402

CONFIG = "https://huggingface.co/org/name/resolve/main/config.json"


def _refused() -> BaseException:
    try:
        requests.head(CONFIG, timeout=5, proxies={"https": "http://127.0.0.1:9"})
    except requests.exceptions.ConnectionError as exc:
        return exc
    pytest.fail("the refusing proxy let the request through")


def test_a_connection_error_to_the_hub_is_the_hub_out_of_reach():
    exc = _refused()
    enrichment = enrich.annotate(exc)
    assert enrichment is not None and enrichment.id == "transformers/hub-unreachable", (str(exc), enrichment)
    assert "huggingface.co could not be reached" in enrichment.summary


def test_its_traceback_in_a_log_names_it_though_requests_raised_it():
    exc = _refused()
    text = "".join(traceback.format_exception(exc))
    assert "requests/adapters.py" in text
    assert [f.id for f in findings(io.StringIO(text))] == ["transformers/hub-unreachable"]


def test_another_hosts_connection_error_is_not_the_hubs():
    try:
        requests.head("https://pypi.org/simple/", timeout=5, proxies={"https": "http://127.0.0.1:9"})
    except requests.exceptions.ConnectionError as exc:
        enrichment = enrich.annotate(exc)
        assert enrichment is None or enrichment.generic, enrichment
