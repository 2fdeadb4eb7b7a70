"""A logger writing to a string, for the tests of log records (imported by the test modules)."""

import io
import logging

import pytest


@pytest.fixture
def stream_logger():
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    logger = logging.getLogger("serving")
    logger.propagate = False
    logger.addHandler(handler)
    yield logger, handler, stream
    logger.removeHandler(handler)
