"""Log records and structlog events that carry an exception get the enrichment."""

import io
import json
import logging

import pytest
import structlog

from enrich.integrations.logging import EnrichFilter, instrument
from enrich.integrations.structlog import add_enrichment
from logger_fixture import stream_logger  # noqa: F401 - a fixture


def failing():
    import demo_targets
    demo_targets.ensure_split(16, 6)


def test_plain_text_log_shows_the_note(demo_catalog, stream_logger):
    logger, handler, stream = stream_logger
    handler.addFilter(EnrichFilter())
    try:
        failing()
    except AssertionError:
        logger.exception("model load failed")
    text = stream.getvalue()
    assert "AssertionError: 16 is not divisible by 6\n[demo/not-divisible] 16 cannot be cut into 6 shards" in text
    assert text.count("[demo/not-divisible]") == 1


def test_json_log_gets_structured_fields_and_no_locals(demo_catalog, stream_logger):
    logger, handler, stream = stream_logger

    class JSONFormatter(logging.Formatter):
        def format(self, record):
            return json.dumps({"msg": record.getMessage(), "enrich": getattr(record, "enrich", None)})

    handler.setFormatter(JSONFormatter())
    assert instrument(logger) is instrument(logger)          # one filter, however often instrumented
    assert len(handler.filters) == 1
    try:
        failing()
    except AssertionError:
        logger.error("model load failed", exc_info=True)
    fields = json.loads(stream.getvalue())["enrich"]
    assert fields["id"] == "demo/not-divisible" and fields["fixes"][0] == "use one of 1, 2, 4, 8, 16"
    assert set(fields["values"]) == {"numerator", "denominator", "secret_token", "sizes"}   # declared names only
    assert fields["values"]["secret_token"] == "[redacted]"


def structlog_failure(processors: list) -> str:
    """What structlog prints for ``log.exception(...)`` of the demo error through ``processors``."""
    out = io.StringIO()
    structlog.configure(processors=processors, logger_factory=structlog.PrintLoggerFactory(out),
                        cache_logger_on_first_use=False)
    try:
        try:
            failing()
        except AssertionError:
            structlog.get_logger().exception("model load failed")
    finally:
        structlog.reset_defaults()
    return out.getvalue()


def test_structlog_processor_before_dict_tracebacks(demo_catalog):
    event = json.loads(structlog_failure([add_enrichment, structlog.processors.dict_tracebacks,
                                          structlog.processors.JSONRenderer()]))
    assert event["enrich"]["id"] == "demo/not-divisible"
    assert event["enrich"]["summary"] == "16 cannot be cut into 6 shards; divisors: 1, 2, 4, 8, 16."
    [exception] = event["exception"]
    assert any("[demo/not-divisible]" in note for note in exception.get("exc_notes", []))


def test_unknown_exception_leaves_the_record_alone(demo_catalog, stream_logger):
    logger, handler, stream = stream_logger
    handler.addFilter(EnrichFilter())
    try:
        raise KeyError("unrelated")
    except KeyError:
        logger.exception("boom")
    assert "KeyError: 'unrelated'" in stream.getvalue() and "[" not in stream.getvalue().splitlines()[-1]


@pytest.mark.parametrize("in_arguments", [False, True])
def test_a_traceback_logged_as_text_gets_the_note(demo_catalog, stream_logger, in_arguments):
    """What sglang's scheduler does: format the exception to text, log it as the message (or as an
    argument of it: the filter reads the formatted message, not the template)."""
    import traceback
    logger, handler, stream = stream_logger
    handler.addFilter(EnrichFilter())
    handler.setFormatter(logging.Formatter("[2026-01-01 10:00:00 TP3] %(message)s | %(enrich_id)s"))
    try:
        failing()
    except AssertionError:
        text = "".join(traceback.format_exc())     # enrich is not installed: no note yet
    assert "[demo/not-divisible]" not in text
    if in_arguments:
        logger.error("Scheduler hit an exception: %s", text)
    else:
        logger.error(f"Scheduler hit an exception: {text}")
    out = stream.getvalue()
    assert "AssertionError: 16 is not divisible by 6\n\n[demo/not-divisible] 16 cannot be cut into 6" in out
    assert out.rstrip().endswith("| demo/not-divisible")


def test_structlog_console_renderer_shows_the_note_once(demo_catalog):
    text = structlog_failure([structlog.processors.add_log_level, add_enrichment,
                              structlog.dev.ConsoleRenderer(colors=False, exception_formatter=structlog.dev.plain_traceback)])
    assert text.count("16 cannot be cut into 6 shards") == 1, text
    assert "enrich_id=demo/not-divisible" in text.splitlines()[0]
