"""torch.distributed misuse raised for real on CPU: a query before any process group, an NCCL group
without a GPU, a store key no rank writes, a store on a port another listener holds."""

import socket

import pytest

dist = pytest.importorskip("torch.distributed")

import enrich  # noqa: E402
from enrich.catalog import get_catalog  # noqa: E402

ENTRY = "torch/default-group-not-initialized"


def test_a_rank_asked_before_init_process_group():
    assert not dist.is_initialized()
    with pytest.raises(ValueError) as info:
        dist.get_rank()
    enrichment = enrich.annotate(info.value)
    assert enrichment is not None and enrichment.id == ENTRY, (str(info.value), enrichment)
    assert str(info.value) in [s.message for s in get_catalog().entries[ENTRY].samples]
    assert info.value.__notes__[0].startswith(f"[{ENTRY}]")


def test_an_nccl_group_where_no_gpu_is_visible():
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("a GPU is visible")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises((ValueError, RuntimeError)) as info:
        dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1)
    # a CUDA build finds no GPU; a CPU-only build has no NCCL at all
    expected = "torch/cuda-no-gpus" if dist.is_nccl_available() else "torch/nccl-not-built-in"
    enrichment = enrich.annotate(info.value)
    assert enrichment is not None and enrichment.id == expected, (str(info.value), enrichment)
    assert str(info.value) in [s.message for s in get_catalog().entries[expected].samples]
    assert not dist.is_initialized()


@pytest.mark.parametrize("call", ["wait", "get"])
def test_a_store_key_that_no_rank_writes(call):
    import datetime
    store = dist.TCPStore("127.0.0.1", 0, 1, True, timeout=datetime.timedelta(seconds=1))
    with pytest.raises(dist.DistStoreError) as info:
        store.wait(["rank1_ready"]) if call == "wait" else store.get("rank1_ready")
    assert str(info.value) == "wait timeout after 1000ms, keys: /rank1_ready"
    enrichment = enrich.annotate(info.value)
    assert enrichment is not None and enrichment.id == "torch/store-wait-timeout", (str(info.value), enrichment)
    assert info.value.__notes__[0].startswith(
        "[torch/store-wait-timeout] This rank waited 1000 ms for the store key /rank1_ready")


@pytest.mark.parametrize("use_libuv", [True, False])
def test_a_store_on_a_port_a_listener_holds(use_libuv, capfd):
    """The master's TCPStore on a taken port: libuv's wording, or the older server's, whose warning
    for each address it tries is all a paste cut before the error keeps."""
    import datetime
    import io
    from enrich.logs import findings

    with socket.socket() as holder:
        holder.bind(("", 0))
        holder.listen()
        port = holder.getsockname()[1]
        with pytest.raises(dist.DistNetworkError) as info:
            dist.TCPStore("127.0.0.1", port, 1, True, timeout=datetime.timedelta(seconds=2), use_libuv=use_libuv)
    enrichment = enrich.annotate(info.value)
    assert enrichment is not None and enrichment.id == "torch/tcpstore-port-in-use", (str(info.value), enrichment)
    assert str(port) in enrichment.summary
    if not use_libuv:
        warned = [line for line in capfd.readouterr().err.splitlines() if "failed to bind to 0.0.0.0" in line]
        sentence = warned[0].split("[c10d] ", 1)[1]
        titled = f"# {sentence.replace(f'0.0.0.0:{port} ', '')}\n"     # a title that leaves the address out
        for text in (f"RuntimeError: {sentence}\n", titled):
            assert [f.id for f in findings(io.StringIO(text))] == ["torch/tcpstore-port-in-use"], text
