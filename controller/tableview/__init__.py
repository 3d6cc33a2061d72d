"""A table as its journal tells it, for every view to draw: ``TableModel`` (model.py)
and the plain words for the table's own terms (words.py)."""

from controller.tableview.model import TableModel
from controller.tableview.words import need_words, state_words

__all__ = ["TableModel", "need_words", "state_words"]
