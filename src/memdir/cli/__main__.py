"""``python -m memdir.cli``: the command line (host configs written by ``memdir install`` name this module)."""

from memdir.cli.main import main

if __name__ == "__main__":
    from memdir.stdio import utf8_mode, utf8_streams

    utf8_mode("memdir.cli")
    utf8_streams()
    main()
