"""The Oracle AI Database backend (python-oracledb, Thin mode by default).

Owns: the three accounts' connections (owner for install and operator commands, app for
every tool call, query for execute_query), binding and clearing a call's identity in the
trusted application context, Oracle's error mapping, LOB and VECTOR shaping, the install
scripts' runner (sql/oracle/install/), Oracle Text and VECTOR_DISTANCE retrieval legs and
the SCN a context manifest records. The wall itself is the database's: VPD policies and guard triggers
installed by sql/oracle/install/.
May import: the shared leaves (errors, identity, clock) and ..base, ..sql_files, ..settings.
"""
