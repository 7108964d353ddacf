{% macro cdc_show_current_state(sample_rows=5) %}
    {#-
        Prints, for every current-state table that has rows, its row count and a few rows (the
        tables without rows in one line); then the quarantine (by reason) and the control log
        (by kind). Fits 80 columns: the first columns of each table, values cut to 16
        characters. `dbt run-operation cdc_show_current_state --args '{sample_rows: 10}'`.
    -#}
    {% if not execute %}
        {{ return('') }}
    {% endif %}
    {% set sample_rows = sample_rows | int %}
    {% set built_tables = {} %}
    {% set built_targets = [] %}
    {% set without_rows = [] %}
    {% for target_table in cdc_target_tables() %}
        {% set relation = ref(target_table.name) %}
        {% if relation.schema not in built_tables %}
            {% do built_tables.update({relation.schema: run_query(
                'show tables in ' ~ relation.schema).columns[1].values() | list}) %}
        {% endif %}
        {% if relation.identifier not in built_tables[relation.schema] %}
            {% do without_rows.append(target_table.name ~ ' (not built yet)') %}
        {% else %}
            {% do built_targets.append(target_table) %}
        {% endif %}
    {% endfor %}
    {#- every built table's row count in one query: one Spark job instead of one per table -#}
    {% set counts = [] %}
    {% for target_table in built_targets %}
        {% do counts.append('select ' ~ loop.index0 ~ ' as place, count(*) as row_count from ' ~ ref(target_table.name)) %}
    {% endfor %}
    {% set row_counts = {} %}
    {% if counts %}
        {% for row in run_query(counts | join(' union all ')).rows %}
            {% do row_counts.update({row[0]: row[1]}) %}
        {% endfor %}
    {% endif %}
    {% for target_table in built_targets %}
        {% set relation = ref(target_table.name) %}
        {% set row_count = row_counts[loop.index0] %}
        {% if row_count == 0 %}
            {% do without_rows.append(target_table.name) %}
        {% else %}
        {{ print('\n== ' ~ target_table.name ~ ' (' ~ cdc_source_names(target_table) ~ '): '
            ~ row_count ~ ' current rows') }}
            {% set columns = [] %}
            {#- as text, so that a value shows as the table holds it (agate would reformat numbers) -#}
            {% for column in target_table.columns %}
                {% do columns.append('cast(' ~ cdc_quote(column.name) ~ ' as string) as ' ~ cdc_quote(column.name)) %}
            {% endfor %}
            {% set key_columns = [] %}
            {% for key in target_table.key_columns %}{% do key_columns.append(cdc_quote(key)) %}{% endfor %}
            {% set rows = run_query(
                'select ' ~ columns | join(', ') ~ ', _cdc.operation as last_operation from ' ~ relation
                ~ ' order by ' ~ key_columns | join(', ') ~ ' limit ' ~ sample_rows) %}
            {% do rows.print_table(max_rows=sample_rows, max_columns=4, max_column_width=16) %}
        {% endif %}
    {% endfor %}
    {% if without_rows %}
        {{ print('\n== no current rows: ' ~ without_rows | join(', ')) }}
    {% endif %}

    {% set quarantine = ref('int_quarantined_records_logged') %}
    {% set reasons = run_query(
        'select reason_code, quarantined_at as found_at, count(*) as records, min(reason_detail) as example_detail from '
        ~ quarantine ~ ' group by reason_code, quarantined_at order by records desc, reason_code') %}
    {{ print('\n== quarantine: ' ~ (reasons.columns[2].values() | sum) ~ ' records in int_quarantined_records_logged') }}
    {% do reasons.print_table(max_columns=4, max_column_width=30) %}
    {{ print('(what each reason means and how to fix it: seed cdc_outcome_reasons)') }}

    {% set control = ref('int_control_records_logged') %}
    {% set kinds = run_query(
        'select control_kind, flavour, count(*) as records from ' ~ control ~ ' group by control_kind, flavour order by records desc') %}
    {{ print('\n== control log: ' ~ (kinds.columns[2].values() | sum) ~ ' records in int_control_records_logged') }}
    {% do kinds.print_table(max_column_width=30) %}
{% endmacro %}
