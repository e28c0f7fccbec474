-- The anchor's data: every row a pure function of its number, through
-- PostgreSQL's hashint8extended (no random()), so that every load gives the
-- same rows, and `debtql seed` can reproduce what the comparison needs (ids,
-- row-to-client mapping, which debts are open) bit for bit.
--
--   psql -v scale=1 -f bench/data.sql     (after schema.sql; load_data.sh does both)
--
-- At scale s (1-12, not 7):
--   clients                20   (client number 1001 is the hot client)
--   debtors, debts   200,000·s  (debt i belongs to debtor i; a quarter are the hot client's)
--   debt_invoices    400,000·s  (2 per debt, adding up to its original amount)
--   payments         150,000·s  (one each on as many distinct debts; debts.paid_amount agrees)
--   invoices         100,000·s  (3 articles each; totals are the articles' sums)
--
-- Row n (debtor, debt, invoice) belongs to the hot client when n % 4 = 0,
-- else to client 2 + n % 19. Ids: clients md5('client:k'), debtors
-- md5('debtor:i'), invoices md5('invoice:k'), read as UUIDs.
-- Scale 1 gives exactly the data every earlier figure was measured on; the
-- rules below change nothing there and only keep rows unique beyond it.

\set ON_ERROR_STOP on
SET client_min_messages = warning;
-- timestamptz::date below must not depend on the session's time zone.
SET TimeZone = 'Europe/Stockholm';
-- A lost load is loaded again: no need to wait for each commit's flush.
SET synchronous_commit = off;

\if :{?scale}
\else
  \set scale 1
\endif
-- Sizes, and the inverse of 7 modulo the number of debts: payment j pays
-- debt 7·j mod debts + 1, so debt i is paid when (i-1)·inv7 mod debts is a
-- payment number. 7 must be prime to the number of debts (no scale 7).
SELECT :scale * 200000 AS debts,
       :scale * 150000 AS payments,
       :scale * 100000 AS invoices,
       (SELECT (k * :scale * 200000::bigint + 1) / 7
          FROM generate_series(0, 6) AS k
         WHERE (k * :scale * 200000::bigint + 1) % 7 = 0) AS inv7,
       :scale BETWEEN 1 AND 12 AND :scale % 7 <> 0 AS scale_ok
\gset
\if :scale_ok
\else
  \warn 'scale must be 1-12 and not 7 (personnummer and organisation numbers stay unique up to 12, and 7 must be prime to the number of debts)'
  SELECT 1/0 AS bad_scale;
\endif

-- h(n, salt): n's hash in stream salt, non-negative.
CREATE FUNCTION pg_temp.h(n bigint, salt bigint) RETURNS bigint
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT hashint8extended(n, salt) & 9223372036854775807 $$;

-- The client (1-20) of row n.
CREATE FUNCTION pg_temp.client_no(n bigint) RETURNS int
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT CASE WHEN n % 4 = 0 THEN 1 ELSE 2 + (n % 19)::int END $$;

-- The Luhn check digit of a string of digits, as Swedish personnummer and
-- organisation numbers carry it.
CREATE FUNCTION pg_temp.luhn(digits text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$
    SELECT ((10 - sum(CASE WHEN (length(digits) - p) % 2 = 0
                           THEN (2 * substr(digits, p, 1)::int) / 10 + (2 * substr(digits, p, 1)::int) % 10
                           ELSE substr(digits, p, 1)::int END) % 10) % 10)::text
    FROM generate_series(1, length(digits)) AS p
  $$;

-- What debt i's one payment pays, when it has one.
CREATE FUNCTION pg_temp.pay_amount(i bigint, orig numeric) RETURNS numeric
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT CASE pg_temp.h(i, 20) % 3 WHEN 0 THEN round(orig * 0.6, 2)   -- the first invoice
                                        WHEN 1 THEN round(orig * 0.25, 2)  -- a part
                                        ELSE orig END $$;                   -- all of it

CREATE TEMP TABLE words AS SELECT
  ARRAY['Anders','Johan','Karl','Lars','Per','Erik','Mikael','Peter','Jan','Hans',
        'Thomas','Daniel','Fredrik','Stefan','Magnus','Mattias','Alexander','Andreas','Niklas','Jonas',
        'Oskar','Gustav','Leander','Viktor','Emil','Maria','Anna','Margareta','Elisabeth','Eva',
        'Kristina','Birgitta','Karin','Marie','Ingrid','Linnéa','Sara','Emma','Kerstin','Lena',
        'Helena','Johanna','Sofia','Elin','Ulla','Astrid','Ebba','Maja','Agnes','Saga'] AS fn,
  ARRAY['Andersson','Johansson','Karlsson','Nilsson','Eriksson','Larsson','Olsson','Persson','Svensson','Gustafsson',
        'Pettersson','Jonsson','Jansson','Hansson','Bengtsson','Jönsson','Lindberg','Jakobsson','Magnusson','Lindström',
        'Olofsson','Lindqvist','Lindgren','Berg','Axelsson','Bergström','Lundberg','Lind','Lundgren','Lundqvist',
        'Mattsson','Berglund','Fredriksson','Sandberg','Henriksson','Forsberg','Sjöberg','Wallin','Engström','Eklund',
        'Danielsson','Håkansson','Lundin','Björk','Bergman','Gunnarsson','Holm','Wikström','Samuelsson','Isaksson',
        'Fransson','Bergqvist','Nyström','Holmberg','Arvidsson','Löfgren','Söderberg','Nyberg','Blomqvist','Claesson',
        'Mårtensson','Sandström','Åberg','Ekström','Sundberg','Hedlund','Sjögren','Strand','Falk','Öberg'] AS ln,
  ARRAY['Bygg','Transport','Konsult','Fastigheter','Handel','El','Måleri','Redovisning','Restaurang','VVS',
        'Städ','Data','Design','Motor','Trädgård'] AS sfx,
  ARRAY['Storgatan','Drottninggatan','Kungsgatan','Vasagatan','Skolgatan','Kyrkogatan','Järnvägsgatan','Parkvägen',
        'Björkvägen','Ekvägen','Tallvägen','Sjövägen','Ringvägen','Industrigatan','Nygatan','Västra Vägen',
        'Östra Långgatan','Bruksgatan','Hamngatan','Götgatan'] AS street,
  ARRAY['Stockholm','Göteborg','Malmö','Uppsala','Västerås','Örebro','Linköping','Helsingborg','Jönköping','Norrköping',
        'Lund','Umeå','Gävle','Borås','Södertälje','Eskilstuna','Halmstad','Växjö','Karlstad','Sundsvall'] AS city,
  ARRAY['Sundsvall Energi AB','Hemfrid Service AB','Göta Bredband AB','Mälardalens Bostäder AB','Norrtälje Tandvård AB',
        'Skåne Hyrmaskiner AB','Västkust Fiber AB','Upplands Elnät AB','Dalarnas Gym AB','Östgöta Försäkring AB',
        'Halland Fastighetsservice AB','Jämtland Handel AB','Kalmar Tidning AB','Värmlands Vatten AB','Gotlands Hamn AB',
        'Blekinge Bilverkstad AB','Lapplands Resor AB','Örebro Parkering AB','Söderhamns Måleri AB','Vättern Fiske AB'] AS client_name;

-- clients: 20 at every scale
INSERT INTO clients (id, client_number, name, organization_number, adress1, address2, zip_code, city,
                     country_code, bank_number, email, contact_name, contact_email, contact_phone,
                     created_at, updated_at)
SELECT md5('client:' || k)::uuid,
       1000 + k,
       w.client_name[k],
       org || pg_temp.luhn(org),
       w.street[1 + pg_temp.h(k, 101) % 20] || ' ' || (1 + pg_temp.h(k, 102) % 80),
       CASE WHEN k % 3 = 0 THEN 'Box ' || (100 + k * 7) END,
       substr(z, 1, 3) || ' ' || substr(z, 4, 2),
       w.city[1 + pg_temp.h(k, 103) % 20],
       'SE',
       'BG ' || (5000 + k * 37) || '-' || lpad((pg_temp.h(k, 104) % 10000)::text, 4, '0'),
       'faktura@kund' || k || '.example.se',
       w.fn[1 + pg_temp.h(k, 105) % 50] || ' ' || w.ln[1 + pg_temp.h(k, 106) % 70],
       'kontakt@kund' || k || '.example.se',
       '08-' || lpad((pg_temp.h(k, 107) % 10000000)::text, 7, '0'),
       timestamptz '2020-01-15 09:00' + k * interval '3 days',
       timestamptz '2023-06-01 09:00' + k * interval '1 day'
FROM generate_series(1, 20) AS k
CROSS JOIN words w
CROSS JOIN LATERAL (SELECT '556' || lpad((100000 + k * 7919)::text, 6, '0') AS org,
                           lpad((10000 + pg_temp.h(k, 108) % 89999)::text, 5, '0') AS z) x;

-- debtors: one in ten a company. A person's number is the birth date
-- (i % 25000 days after 1940-01-01), a three-digit birth number and the
-- check digit; the birth number is q·100 + (37·i mod 100) for q = i / 25000
-- below 10 (all of scale 1), and b·100 + (37·i + a) mod 100 for q = 10a + b,
-- which no smaller q gives for the same date. A company's number is 556 and
-- i in six digits below a million, then 559 and i / 10.
INSERT INTO debtors (id, client_id, is_corporation, identification_number, name, address1, address2, care_of,
                     zip_code, city, country_code, email, phone, created_at, updated_at)
SELECT md5('debtor:' || i)::uuid,
       md5('client:' || pg_temp.client_no(i))::uuid,
       corp,
       CASE WHEN corp THEN org || pg_temp.luhn(org)
            ELSE to_char(dob, 'YYYYMMDD') || nnn || pg_temp.luhn(to_char(dob, 'YYMMDD') || nnn)
       END,
       CASE WHEN corp THEN last || ' ' || w.sfx[1 + pg_temp.h(i, 3) % 15] || ' AB'
            ELSE first || ' ' || last END,
       w.street[1 + pg_temp.h(i, 6) % 20] || ' ' || (1 + pg_temp.h(i, 7) % 120),
       CASE WHEN pg_temp.h(i, 8) % 10 = 0 THEN 'lgh ' || (1001 + pg_temp.h(i, 9) % 300) END,
       CASE WHEN pg_temp.h(i, 10) % 25 = 0 THEN 'c/o ' || w.fn[1 + pg_temp.h(i, 11) % 50] || ' ' || last END,
       substr(z, 1, 3) || ' ' || substr(z, 4, 2),
       w.city[1 + pg_temp.h(i, 12) % 20],
       'SE',
       CASE WHEN pg_temp.h(i, 13) % 5 <> 0 THEN
         lower(translate(CASE WHEN corp THEN 'info.' || last ELSE first || '.' || last END,
                         'åäöéÅÄÖÉ', 'aaoeAAOE')) || i || '@example.se' END,
       '07' || (pg_temp.h(i, 14) % 10) || '-' || lpad((pg_temp.h(i, 15) % 10000000)::text, 7, '0'),
       timestamptz '2021-06-01 08:00' + i * interval '4 minutes',
       timestamptz '2021-06-01 08:00' + i * interval '4 minutes' + (pg_temp.h(i, 16) % 400) * interval '1 day'
FROM generate_series(1, :debts) AS i
CROSS JOIN words w
CROSS JOIN LATERAL (
  SELECT i % 10 = 0 AS corp,
         CASE WHEN i < 1000000 THEN '556' || lpad(i::text, 6, '0')
              ELSE '559' || lpad((i / 10)::text, 6, '0') END AS org,
         date '1940-01-01' + (i % 25000)::int AS dob,
         CASE WHEN i < 250000 THEN lpad(((i / 25000) * 100 + (i * 37) % 100)::text, 3, '0')
              ELSE ((i / 25000) % 10)::text || lpad((((i * 37) % 100 + (i / 250000)) % 100)::text, 2, '0') END AS nnn,
         w.fn[1 + pg_temp.h(i, 1) % 50] AS first,
         w.ln[1 + pg_temp.h(i, 2) % 70] AS last,
         lpad((10000 + pg_temp.h(i, 17) % 89999)::text, 5, '0') AS z
) x;

-- debts: main_status from h(i, 22) % 100 (25-59 is 2, open: 35 %), a
-- payment on the debts the payments below reach.
INSERT INTO debts (id, client_id, debtor_id, active_status, main_status, under_status, payment_status,
                   original_amount, paid_amount, withdrawn_at, withdraw_comment, created_at, updated_at)
SELECT i,
       md5('client:' || pg_temp.client_no(i))::uuid,
       md5('debtor:' || i)::uuid,
       CASE WHEN pg_temp.h(i, 21) % 100 < 80 THEN 1 ELSE 0 END,
       CASE WHEN ms < 25 THEN 1 WHEN ms < 60 THEN 2 WHEN ms < 75 THEN 3 WHEN ms < 95 THEN 4 ELSE 5 END,
       (pg_temp.h(i, 23) % 6)::smallint,
       CASE WHEN paid = 0 THEN 0 WHEN paid >= orig THEN 2 ELSE 1 END,
       orig,
       paid,
       CASE WHEN wd THEN created + interval '30 days' END,
       CASE WHEN wd THEN 'Återkallad av klient' END,
       created,
       created + (pg_temp.h(i, 24) % 200) * interval '1 day'
FROM generate_series(1, :debts) AS i
CROSS JOIN LATERAL (
  SELECT (100 + (pg_temp.h(i, 25) % 4990000) / 100.0)::numeric(18,2) AS orig,
         pg_temp.h(i, 22) % 100 AS ms,
         pg_temp.h(i, 26) % 100 < 3 AS wd,
         timestamptz '2022-01-01 08:00' + i * interval '5 minutes' AS created
) a
CROSS JOIN LATERAL (
  SELECT CASE WHEN ((i::bigint - 1) * :inv7) % :debts BETWEEN 1 AND :payments
              THEN pg_temp.pay_amount(i, a.orig) ELSE 0 END::numeric(18,2) AS paid
) b;

-- debt_invoices: two per debt, 60 % and 40 % of it.
INSERT INTO debt_invoices (id, debt_id, invoice_number, description, invoice_date, due_date, reminder_date, amount)
SELECT 2 * (d.id - 1) + k,
       d.id,
       'F' || lpad((2 * (d.id - 1) + k)::text, 8, '0'),
       CASE k WHEN 1 THEN 'Faktura för tjänster' ELSE 'Faktura för varor' END,
       inv_date,
       inv_date + 30,
       CASE WHEN pg_temp.h(d.id, 30 + k) % 2 = 0 THEN inv_date + 44 END,
       CASE WHEN k = 1 THEN round(d.original_amount * 0.6, 2)
            ELSE d.original_amount - round(d.original_amount * 0.6, 2) END
FROM debts d
CROSS JOIN generate_series(1, 2) AS k
CROSS JOIN LATERAL (SELECT d.created_at::date - 75 + (k - 1) * 15 AS inv_date) x
ORDER BY d.id, k;

-- payments: payment j pays debt 7·j mod debts + 1, on its first invoice, the
-- amount the debt records as paid.
INSERT INTO payments (id, debt_id, debt_invoice_id, amount, transaction_date, booked_date, created_at)
SELECT j,
       d.id,
       2 * (d.id - 1) + 1,
       d.paid_amount,
       td,
       CASE WHEN pg_temp.h(j, 40) % 10 < 9 THEN td + 1 END,
       td + time '12:00'
FROM generate_series(1, :payments) AS j
JOIN debts d ON d.id = (j * 7) % :debts + 1
CROSS JOIN LATERAL (SELECT d.created_at::date + 45 AS td) x
ORDER BY j;

-- invoices and their articles: the articles first, so that each invoice's
-- totals are their sums.
CREATE TEMP TABLE tmp_articles AS
SELECT k, a,
       qty,
       price,
       round(qty * price, 2) AS total_ex,
       round(round(qty * price, 2) * vat / 100, 2) AS total_vat,
       vat
FROM generate_series(1, :invoices) AS k
CROSS JOIN generate_series(1, 3) AS a
CROSS JOIN LATERAL (
  SELECT (1 + pg_temp.h(k * 3 + a, 50) % 5)::numeric(12,3) AS qty,
         (50 + (pg_temp.h(k * 3 + a, 51) % 95000) / 100.0)::numeric(18,2) AS price,
         CASE a WHEN 3 THEN 12.00 ELSE 25.00 END::numeric(5,2) AS vat
) x;

INSERT INTO invoices (id, client_id, invoice_number, invoice_date, days_until_expiration, due_date, interest_rate,
                      total_excluding_vat, total_vat_amount, total_amount_including_vat, reminder_date, reminder_fee,
                      status, process_status, payment_status, is_completed, created_at)
SELECT md5('invoice:' || t.k)::uuid,
       md5('client:' || pg_temp.client_no(t.k))::uuid,
       (10000 + t.k)::text,
       inv_date,
       days,
       inv_date + days,
       CASE WHEN pg_temp.h(t.k, 53) % 2 = 0 THEN 8.50 END,
       t.ex, t.vat, t.ex + t.vat,
       CASE WHEN st = 2 THEN inv_date + days + 14 END,
       CASE WHEN st = 2 THEN 60.00 END,
       st,
       (pg_temp.h(t.k, 54) % 5)::smallint,
       CASE WHEN st = 3 THEN 2 ELSE pg_temp.h(t.k, 55) % 2 END,
       st = 3,
       inv_date + time '09:00'
FROM (SELECT k, sum(total_ex) AS ex, sum(total_vat) AS vat FROM tmp_articles GROUP BY k) t
CROSS JOIN LATERAL (
  SELECT date '2023-01-01' + (t.k % 640)::int AS inv_date,
         (ARRAY[10, 20, 30])[1 + pg_temp.h(t.k, 52) % 3] AS days,
         (pg_temp.h(t.k, 56) % 4)::smallint AS st
) x
ORDER BY t.k;

INSERT INTO invoice_articles (id, invoice_id, name, description, price_excluding_vat, total_vat_amount,
                              total_amount_including_vat, total_amount_excluding_vat, quantity, vat_percentage, discount)
SELECT 3 * (k - 1) + a,
       md5('invoice:' || k)::uuid,
       (ARRAY['Konsulttimme', 'Serviceavgift', 'Material', 'Abonnemang', 'Frakt', 'Licens'])[1 + pg_temp.h(k * 3 + a, 57) % 6],
       'Artikel ' || a || ' på faktura ' || (10000 + k),
       price, total_vat, total_ex + total_vat, total_ex, qty, vat, 0
FROM tmp_articles
ORDER BY k, a;

-- The ids above were set explicitly: new rows (the payment benchmark's)
-- continue after them.
SELECT setval(pg_get_serial_sequence('debts', 'id'), (SELECT max(id) FROM debts));
SELECT setval(pg_get_serial_sequence('debt_invoices', 'id'), (SELECT max(id) FROM debt_invoices));
SELECT setval(pg_get_serial_sequence('payments', 'id'), (SELECT max(id) FROM payments));
SELECT setval(pg_get_serial_sequence('invoice_articles', 'id'), (SELECT max(id) FROM invoice_articles));
