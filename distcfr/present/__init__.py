"""How results are shown to people: the draw27 hand groups and one hand's strategy, the summaries a run
prints, and the plots. Computes nothing a solver needs; the command-line tools print what it renders."""
