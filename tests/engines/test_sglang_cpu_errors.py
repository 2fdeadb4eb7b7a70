"""sglang's own checks raised for real on CPU: its wait for a port another process holds."""

import socket

import pytest

pytest.importorskip("sglang")

import enrich  # noqa: E402


def test_a_port_another_listener_holds_stays_unavailable():
    from sglang.srt.utils.network import wait_port_available

    with socket.socket() as holder:
        holder.bind(("", 0))
        holder.listen()
        port = holder.getsockname()[1]
        with pytest.raises(ValueError, match=f"^port at {port} is not available in 1 seconds") as info:
            wait_port_available(port, "port", timeout_s=1)
    enrichment = enrich.annotate(info.value)
    assert enrichment is not None and enrichment.id == "process/port-in-use"
    note = info.value.__notes__[0].splitlines()
    assert note[0] == f"[process/port-in-use] The server's port {port} stayed in use: another process already listens there."
    assert f"fix 1: stop the process holding port {port} (ss -ltnp | grep :{port} shows it)" in note[2]
    assert enrichment.site == "sglang.srt.utils.network:wait_port_available"
