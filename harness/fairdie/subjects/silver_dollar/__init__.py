"""fairdie.subjects.silver_dollar: the Silver Dollar Game on an ATtiny84A."""
