#!/bin/bash
# Runs once inside the Oracle Free container, after the database is created: memgate's accounts
# and the query synonyms (the DBA's part of sql/oracle/install/), with test.env's passwords.
# Every &&variable the two files use is DEFINEd first: an undefined one makes SQL*Plus prompt and
# read the next line of this heredoc as its value (tests/backend/oracle/test_static_first_contact.py
# checks the DEFINEs against the files). VERIFY OFF: SQL*Plus would otherwise print each line it
# substituted, passwords included, into the container's log.
set -euo pipefail
sqlplus -s / as sysdba <<SQL
WHENEVER SQLERROR EXIT FAILURE
SET SQLBLANKLINES ON
SET VERIFY OFF
ALTER SESSION SET CONTAINER = FREEPDB1;
DEFINE memgate_owner_password = "${MEMGATE_ORACLE_OWNER_PASSWORD}"
DEFINE memgate_app_password = "${MEMGATE_ORACLE_APP_PASSWORD}"
DEFINE memgate_query_password = "${MEMGATE_ORACLE_QUERY_PASSWORD}"
DEFINE memgate_tablespace = USERS
DEFINE memgate_query_temp_mb = 1024
DEFINE memgate_query_temp_file = auto
@/opt/memgate/install/010_accounts.sql
@/opt/memgate/install/015_query_synonyms.sql
EXIT
SQL
