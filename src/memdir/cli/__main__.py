"""``python -m memdir.cli``: the command line (host configs written by ``memdir install`` before the ``-m memdir``
fallback name this module)."""

import sys

try:
    from memdir.cli.main import main
    from memdir.stdio import utf8_mode, utf8_streams
except (ImportError, SyntaxError) as exc:  # memdir's own files missing or cut: `pip install` is replacing them
    if __name__ != "__main__":
        raise
    _hook = "hook" in sys.argv[1:]  # a host's hook fails open: exit 0, nothing for the host to show
    if not _hook or sys.stderr.isatty():
        print(f"memdir: {'hook skipped' if _hook else 'error'}: memdir's installed files are incomplete "
              f"({type(exc).__name__}: {str(exc).splitlines()[0][:300] if str(exc) else ''}); if an upgrade is under "
              "way run the command again when it ends, else install memdir again the way you installed it",
              file=sys.stderr)
    sys.exit(0 if _hook else 1)

if __name__ == "__main__":
    utf8_mode("memdir.cli")
    utf8_streams()
    main()
