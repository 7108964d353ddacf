{% macro cdc_show_current_state(sample_rows=5) %}
    {#-
        Prints, for every current-state table, its row count and a few rows; then the
        quarantine (by reason) and the control log (by kind). `dbt run-operation
        cdc_show_current_state --args '{sample_rows: 10}'`.
    -#}
    {% if not execute %}
        {{ return('') }}
    {% endif %}
    {% set sample_rows = sample_rows | int %}
    {% set built_tables = {} %}
    {% for target_table in cdc_target_tables() %}
        {% set relation = ref(target_table.name) %}
        {% if relation.schema not in built_tables %}
            {% do built_tables.update({relation.schema: run_query(
                'show tables in ' ~ relation.schema).columns[1].values() | list}) %}
        {% endif %}
        {% if relation.identifier not in built_tables[relation.schema] %}
            {{ print('\n== ' ~ target_table.name ~ ': not built yet') }}
        {% else %}
            {% set row_count = run_query('select count(*) from ' ~ relation).columns[0].values()[0] %}
            {{ print('\n== ' ~ target_table.name ~ ' (' ~ cdc_source_names(target_table) ~ '): '
                ~ row_count ~ ' current rows') }}
            {% if row_count > 0 %}
                {% set columns = [] %}
                {% for column in target_table.columns %}{% do columns.append(cdc_quote(column.name)) %}{% endfor %}
                {% set key_columns = [] %}
                {% for key in target_table.key_columns %}{% do key_columns.append(cdc_quote(key)) %}{% endfor %}
                {% set rows = run_query(
                    'select ' ~ columns | join(', ') ~ ', _cdc.operation as last_operation from ' ~ relation
                    ~ ' order by ' ~ key_columns | join(', ') ~ ' limit ' ~ sample_rows) %}
                {% do rows.print_table(max_rows=sample_rows, max_columns=8, max_column_width=28) %}
            {% endif %}
        {% endif %}
    {% endfor %}

    {% set quarantine = ref('int_quarantined_records_logged') %}
    {% set reasons = run_query(
        'select reason_code, quarantined_at, count(*) as records, min(reason_detail) as example_detail,'
        ~ ' min(how_to_fix) as how_to_fix from ' ~ quarantine ~ ' group by reason_code, quarantined_at order by records desc') %}
    {{ print('\n== quarantine (int_quarantined_records_logged): '
        ~ (reasons.columns[2].values() | sum) ~ ' records') }}
    {% do reasons.print_table(max_columns=5, max_column_width=60) %}

    {% set control = ref('int_control_records_logged') %}
    {% set kinds = run_query(
        'select control_kind, flavour, count(*) as records from ' ~ control ~ ' group by control_kind, flavour order by records desc') %}
    {{ print('\n== control log (int_control_records_logged): ' ~ (kinds.columns[2].values() | sum) ~ ' records') }}
    {% do kinds.print_table(max_column_width=40) %}
{% endmacro %}
