"""What the user sees of results: tables for the terminal, markdown, HTML, plots.

  report.py     every table's rows, built once and rendered for the terminal, markdown and HTML
  mixreport.py  a mixed run's rows: per stream, per table, the flushing
  plots.py      the plots and the HTML page of `loadgen report`
Numbers are written as loadgen/numfmt.py says (a floor below: the results and the sampler write them too).
"""
