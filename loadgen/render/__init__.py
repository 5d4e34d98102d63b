"""What the user sees of results: tables for the terminal, markdown, HTML, plots.

  numfmt.py  how every table writes numbers
  report.py  every table's rows, built once and rendered for the terminal, markdown and HTML
  plots.py   the plots and the HTML page of `loadgen report`
"""
