-- The anchor's schema: the tables PostGraphile serves (database debtbench,
-- debtbench10, ...), as a hand-written PostgreSQL schema for a debt
-- collection API would have them. DebtQL keeps its own tables (ent's) in its
-- own database; data.sql and `debtql seed --scale bench` give both the same
-- rows. clients.adress1 is spelled as in the interface description the
-- operations were written from.

CREATE EXTENSION IF NOT EXISTS pg_trgm;  -- ILIKE '%term%' on debtor names

CREATE TABLE clients (
    id                  uuid PRIMARY KEY,
    client_number       integer NOT NULL UNIQUE,
    name                text NOT NULL,
    organization_number text NOT NULL,
    adress1             text,
    address2            text,
    zip_code            text,
    city                text,
    country_code        char(2) NOT NULL DEFAULT 'SE',
    bank_number         text,
    email               text,
    contact_name        text,
    contact_email       text,
    contact_phone       text,
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE debtors (
    id                    uuid PRIMARY KEY,
    client_id             uuid NOT NULL REFERENCES clients(id),
    is_corporation        boolean NOT NULL DEFAULT false,
    identification_number text NOT NULL,
    name                  text NOT NULL,
    address1              text,
    address2              text,
    care_of               text,
    zip_code              text,
    city                  text,
    country_code          char(2) NOT NULL DEFAULT 'SE',
    email                 text,
    phone                 text,
    created_at            timestamptz NOT NULL DEFAULT now(),
    updated_at            timestamptz NOT NULL DEFAULT now(),
    -- Also the index of the client_id foreign key.
    CONSTRAINT debtors_client_identification_key UNIQUE (client_id, identification_number)
);
-- A client's debtors by name.
CREATE INDEX debtors_client_name_idx ON debtors (client_id, name, id);
-- Substring search of names. For the hot client the planner prefers the
-- name index above with the ILIKE as a filter, which costs about the same.
CREATE INDEX debtors_name_trgm_idx ON debtors USING gin (name gin_trgm_ops);

CREATE TABLE debts (
    id               serial PRIMARY KEY,
    client_id        uuid NOT NULL REFERENCES clients(id),
    debtor_id        uuid NOT NULL REFERENCES debtors(id),
    active_status    smallint NOT NULL DEFAULT 1,
    main_status      smallint NOT NULL DEFAULT 1,
    under_status     smallint NOT NULL DEFAULT 0,
    payment_status   smallint NOT NULL DEFAULT 0,
    original_amount  numeric(18,2) NOT NULL,
    paid_amount      numeric(18,2) NOT NULL DEFAULT 0,
    withdrawn_at     timestamptz,
    withdraw_comment text,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now()
);
-- A client's debts by id (and the client_id foreign key), then the same
-- under each status filter a list screen offers.
CREATE INDEX debts_client_id_idx                ON debts (client_id, id);
CREATE INDEX debts_client_main_status_id_idx    ON debts (client_id, main_status, id);
CREATE INDEX debts_client_active_status_id_idx  ON debts (client_id, active_status, id);
CREATE INDEX debts_client_payment_status_id_idx ON debts (client_id, payment_status, id);
CREATE INDEX debts_debtor_id_idx                ON debts (debtor_id);

CREATE TABLE debt_invoices (
    id             serial PRIMARY KEY,
    debt_id        integer NOT NULL REFERENCES debts(id),
    invoice_number text NOT NULL,
    description    text,
    invoice_date   date NOT NULL,
    due_date       date NOT NULL,
    reminder_date  date,
    amount         numeric(18,2) NOT NULL
);
CREATE INDEX debt_invoices_debt_id_idx ON debt_invoices (debt_id);

CREATE TABLE payments (
    id               serial PRIMARY KEY,
    debt_id          integer NOT NULL REFERENCES debts(id),
    debt_invoice_id  integer NOT NULL REFERENCES debt_invoices(id),
    amount           numeric(18,2) NOT NULL,
    transaction_date date NOT NULL,
    booked_date      date,
    created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX payments_debt_id_idx         ON payments (debt_id);
CREATE INDEX payments_debt_invoice_id_idx ON payments (debt_invoice_id);

CREATE TABLE invoices (
    id                         uuid PRIMARY KEY,
    client_id                  uuid NOT NULL REFERENCES clients(id),
    invoice_number             text NOT NULL,
    invoice_date               date NOT NULL,
    days_until_expiration      integer NOT NULL,
    due_date                   date NOT NULL,
    interest_rate              numeric,
    total_excluding_vat        numeric(18,2) NOT NULL,
    total_vat_amount           numeric(18,2) NOT NULL,
    total_amount_including_vat numeric(18,2) NOT NULL,
    reminder_date              date,
    reminder_fee               numeric(18,2),
    status                     smallint NOT NULL DEFAULT 0,
    process_status             smallint NOT NULL DEFAULT 0,
    payment_status             smallint NOT NULL DEFAULT 0,
    is_completed               boolean NOT NULL DEFAULT false,
    created_at                 timestamptz NOT NULL DEFAULT now(),
    -- Also the index of the client_id foreign key.
    CONSTRAINT invoices_client_invoice_number_key UNIQUE (client_id, invoice_number)
);
CREATE INDEX invoices_client_status_id_idx         ON invoices (client_id, status, id);
CREATE INDEX invoices_client_process_status_id_idx ON invoices (client_id, process_status, id);
CREATE INDEX invoices_client_payment_status_id_idx ON invoices (client_id, payment_status, id);

CREATE TABLE invoice_articles (
    id                         serial PRIMARY KEY,
    invoice_id                 uuid NOT NULL REFERENCES invoices(id),
    name                       text NOT NULL,
    description                text,
    price_excluding_vat        numeric(18,2) NOT NULL,
    total_vat_amount           numeric(18,2) NOT NULL,
    total_amount_including_vat numeric(18,2) NOT NULL,
    total_amount_excluding_vat numeric(18,2) NOT NULL,
    quantity                   numeric(12,3) NOT NULL,
    vat_percentage             numeric(5,2) NOT NULL,
    discount                   numeric(18,2) NOT NULL DEFAULT 0
);
CREATE INDEX invoice_articles_invoice_id_idx ON invoice_articles (invoice_id);
