"""Paper reproductions: each module runs one paper's experiments on the core and compares them
with the paper's analytical model, writing figures and data for docs/reproductions/."""
