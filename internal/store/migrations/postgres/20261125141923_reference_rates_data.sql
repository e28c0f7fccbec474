-- reference_rates_data: the Riksbank's reference rates that DebtQL ships
-- (before 1 July 2002 the discount rate), as docs/reference-rates.md records
-- them with their sources: every row of its table that has a value. A rate
-- is percent scaled by 10^4 (4.50 % is 45000), as collection.Rate keeps it.
-- 2000-01-01 is 1.50, the discount rate in force that day (set from
-- 4 October 1999); the value set in January 2000 was not found (the page's
-- note a). The half-years 2000-07-01 to 2002-01-01 have no value found and
-- no row. The same rows as store.ShippedReferenceRates, which SQLite gets;
-- TestShippedReferenceRates holds the two equal. Written by hand.
INSERT INTO "reference_rates" ("valid_from", "rate") VALUES
  ('2000-01-01', 15000),
  ('2002-07-01', 45000),
  ('2003-01-01', 40000),
  ('2003-07-01', 30000),
  ('2004-01-01', 30000),
  ('2004-07-01', 20000),
  ('2005-01-01', 20000),
  ('2005-07-01', 15000),
  ('2006-01-01', 15000),
  ('2006-07-01', 25000),
  ('2007-01-01', 30000),
  ('2007-07-01', 35000),
  ('2008-01-01', 40000),
  ('2008-07-01', 45000),
  ('2009-01-01', 20000),
  ('2009-07-01', 5000),
  ('2010-01-01', 5000),
  ('2010-07-01', 5000),
  ('2011-01-01', 15000),
  ('2011-07-01', 20000),
  ('2012-01-01', 20000),
  ('2012-07-01', 15000),
  ('2013-01-01', 10000),
  ('2013-07-01', 10000),
  ('2014-01-01', 10000),
  ('2014-07-01', 10000),
  ('2015-01-01', 0),
  ('2015-07-01', 0),
  ('2016-01-01', 0),
  ('2016-07-01', -5000),
  ('2017-01-01', -5000),
  ('2017-07-01', -5000),
  ('2018-01-01', -5000),
  ('2018-07-01', -5000),
  ('2019-01-01', -5000),
  ('2019-07-01', 0),
  ('2020-01-01', 0),
  ('2020-07-01', 0),
  ('2021-01-01', 0),
  ('2021-07-01', 0),
  ('2022-01-01', 0),
  ('2022-07-01', 5000),
  ('2023-01-01', 25000),
  ('2023-07-01', 35000),
  ('2024-01-01', 40000),
  ('2024-07-01', 40000),
  ('2025-01-01', 30000),
  ('2025-07-01', 20000),
  ('2026-01-01', 20000);
