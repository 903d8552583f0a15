"""``python -m memdir.distill``: the detached distillation worker the hooks start."""

import sys

from memdir.distill.flow import main

if __name__ == "__main__":
    sys.exit(main())
