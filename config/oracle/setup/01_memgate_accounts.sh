#!/bin/bash
# Runs once inside the Oracle Free container, after the database is created: memgate's accounts
# and the query synonyms (the DBA's part of sql/oracle/install/), with test.env's passwords.
set -euo pipefail
sqlplus -s / as sysdba <<SQL
WHENEVER SQLERROR EXIT FAILURE
SET SQLBLANKLINES ON
ALTER SESSION SET CONTAINER = FREEPDB1;
DEFINE memgate_owner_password = "${MEMGATE_ORACLE_OWNER_PASSWORD}"
DEFINE memgate_app_password = "${MEMGATE_ORACLE_APP_PASSWORD}"
DEFINE memgate_query_password = "${MEMGATE_ORACLE_QUERY_PASSWORD}"
DEFINE memgate_tablespace = USERS
@/opt/memgate/install/010_accounts.sql
@/opt/memgate/install/015_query_synonyms.sql
EXIT
SQL
