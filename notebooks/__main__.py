"""``python -m notebooks build``: executed ``.ipynb`` files from the jupytext sources (see `notebooks/_build.py`)."""

from notebooks._build import main

main()
