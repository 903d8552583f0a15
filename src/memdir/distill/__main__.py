"""``python -m memdir.distill``: the detached distillation worker the hooks start (an entry point, like the CLI:
it opens the facade through the public API)."""

from __future__ import annotations

import logging
import os
import sys

from memdir.distill import flow


def main(argv: list[str] | None = None) -> int:
    """``python -m memdir.distill --session S [--dir D] [--home H] [--delay SECONDS]``: the detached worker (it
    first lowers its priority and sleeps ``--delay``, ``distill.delay_s`` = 2 s from :func:`memdir.distill.flow.trigger`). Logs one summary
    line (or the failure) to stderr, which :func:`memdir.distill.flow.trigger` points at ``distill.log``; exit 0 either way except
    for bad arguments."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m memdir.distill")
    ap.add_argument("--session")
    ap.add_argument("--since")
    ap.add_argument("--dir")
    ap.add_argument("--home")
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--delay", type=float, default=0.0, help="seconds to wait first (at low priority)")
    args = ap.parse_args(argv)
    if args.delay > 0:  # let the host and the hook that started us finish before we use the CPU
        try:
            os.nice(10)
        except (AttributeError, OSError):
            pass
        import time

        time.sleep(min(args.delay, 300.0))
    os.environ["MEMDIR_DISTILLING"] = "1"  # anything we start (a host CLI and its hooks) stays out of memory
    # distill.log gets every record of the "memdir" logger, redacted whole as the debug log's are (a warning can quote
    # a turn, a model's error text or a URL's password)
    from memdir.debuglog import RedactingFormatter

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(RedactingFormatter("%(asctime)s %(process)d %(levelname)s %(message)s"))
    flow.log.addHandler(handler)
    flow.log.setLevel(logging.INFO)
    flow.log.propagate = False
    import memdir  # the worker is an entry point, like the CLI: it opens the facade through the public API

    from memdir.stopsignals import stop_signals

    try:
        # a SIGTERM or SIGHUP (a logout, a shutdown, a kill) ends the run as Ctrl-C does: the model CLI it waits for
        # is ended with its process group (the default handler left it running), what was written stays
        with stop_signals(), memdir.open(args.dir, home=args.home) as m:
            out = m.distill(session=args.session, since=args.since, dry_run=args.dry_run)
        flow.log.info("distill: session %s: %d calls, %d notes, %d proposals, %d skipped, %d rejected, %d errors",
                 args.session or "(all)", out["calls"], len(out["notes"]), len(out["proposals"]), len(out["skipped"]),
                 len(out["rejected"]), len(out["errors"]))
    except KeyboardInterrupt as exc:  # a signal: one line in distill.log, no traceback
        flow.log.warning("distill: session %s stopped by a signal: %s", args.session, str(exc) or "interrupted")
    except Exception as exc:  # noqa: BLE001 — logged, never shown to the host
        from memdir.capture.redact import redact

        flow.log.warning("distill: session %s failed: %s: %s", args.session, type(exc).__name__, redact(str(exc))[:300])
    return 0



if __name__ == "__main__":
    sys.exit(main())
