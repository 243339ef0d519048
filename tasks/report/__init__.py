"""The HTML report: figures and tables from the report views of some studies, in one file."""
