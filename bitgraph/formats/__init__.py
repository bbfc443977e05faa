"""Storage formats: CSR (canonical) and the derived bit formats."""
