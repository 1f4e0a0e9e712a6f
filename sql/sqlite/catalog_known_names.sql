-- Every name a query could read that is not a CTE: schema objects (main and temp) and virtual-table modules.
SELECT name FROM sqlite_master UNION SELECT name FROM sqlite_temp_master UNION SELECT name FROM pragma_module_list
