// Search over the tables (issue 6).
