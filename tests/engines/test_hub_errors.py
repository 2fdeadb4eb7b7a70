"""The Hugging Face Hub out of reach or refusing, for real: requests through a proxy that refuses the
connection or answers 401, on CPU and with no network (releases of transformers and huggingface_hub
before httpx let requests' error out)."""

import http.server
import io
import threading
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


class _Refusing(http.server.BaseHTTPRequestHandler):
    """A proxy that answers every request as the Hub answers a client without a valid token: 401."""

    def do_GET(self):
        self.send_response(401)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def refusing_proxy():
    server = http.server.HTTPServer(("127.0.0.1", 0), _Refusing)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


@pytest.mark.parametrize("path, entry", [
    ("api/models/meta-llama/Meta-Llama-3-8B", "transformers/repo-not-found"),   # a gated repository's model info
    ("api/whoami-v2", None),                                                  # a login check: not a repository
])
def test_the_hubs_401_names_a_repository_only_for_its_model_api(refusing_proxy, path, entry):
    response = requests.get(f"http://huggingface.co/{path}", timeout=5, proxies={"http": refusing_proxy})
    with pytest.raises(requests.exceptions.HTTPError, match="^401 Client Error: Unauthorized for url") as info:
        response.raise_for_status()
    enrichment = enrich.annotate(info.value)
    assert (enrichment.id if enrichment and not enrichment.generic else None) == entry, (str(info.value), enrichment)
    if entry:
        assert "'meta-llama/Meta-Llama-3-8B'" in enrichment.summary
