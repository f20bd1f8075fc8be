"""The HTML help pages in pages/ are read through BeautifulSoup (``pip install -e '.[pages]'``);
where it is not installed, their gold file is left out rather than failed."""

from importlib.util import find_spec

collect_ignore_glob = [] if find_spec("bs4") is not None else ["pages/*"]
