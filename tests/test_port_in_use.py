"""A port already in use says how to pick another (memdir serve / ui)."""

import socket

import pytest

from memdir.errors import MemdirError
from memdir.server.http import bind


def test_a_port_in_use_names_the_way_out():
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    port = taken.getsockname()[1]
    try:
        with pytest.raises(MemdirError, match="--port 0"):
            bind("127.0.0.1", port)
    finally:
        taken.close()
