{#-
    The registry of target tables is the marts' YAML: every model whose config.meta has a
    `cdc` block is the current-state table of one source table.

        - name: shop_customers
          config:
            meta:
              cdc:
                source: {database: shop, table: customers}   # database / schema optional
                keys: [id]
          columns:
            - name: id
              data_type: int
            - name: updated_at
              data_type: timestamp
              config: {meta: {cdc_encoding: epoch_micros}}   # only for schemaless epochs

    Columns whose name starts with `_cdc` are the product's metadata columns, not source columns.
-#}

{% macro cdc_target_tables() %}
    {#- All registered target tables, sorted by name, validated. Empty at parse time. -#}
    {% set target_tables = [] %}
    {% if execute %}
        {% for node in graph.nodes.values()
            if node.resource_type == 'model' and (node.config.get('meta') or {}).get('cdc') %}
            {% do target_tables.append(_cdc_target_table(node)) %}
        {% endfor %}
        {% do _cdc_check_no_overlapping_sources(target_tables) %}
    {% endif %}
    {{ return(target_tables | sort(attribute='name')) }}
{% endmacro %}


{% macro cdc_check_registry() %}
    {#-
        on-run-start hook: validates every registry entry (cdc_target_tables) before any model
        runs, so that a mistake in the marts' YAML (an unknown type, a key that is not a
        column, an encoding that does not fit its type, two tables claiming one source table)
        stops the run in its first seconds, naming the model, what was given and what was
        expected, instead of when its table's turn comes. Renders no SQL.
    -#}
    {% do cdc_target_tables() %}
    {{ return('') }}
{% endmacro %}


{% macro cdc_target_table(name) %}
    {#- The registered target table called `name` (a model name); fails when there is none. -#}
    {% for target_table in cdc_target_tables() if target_table.name == name %}
        {{ return(target_table) }}
    {% endfor %}
    {% if execute %}
        {{ exceptions.raise_compiler_error(
            "model '" ~ name ~ "' has no `config.meta.cdc` block in its YAML: expected "
            ~ "{source: {database, schema, table}, keys: [...]} and columns with data_type"
        ) }}
    {% endif %}
    {{ return(none) }}
{% endmacro %}


{% macro cdc_supported_data_types() %}
    {{ return(['string', 'boolean', 'tinyint', 'smallint', 'int', 'bigint', 'float', 'double',
               'decimal(p,s)', 'date', 'timestamp', 'binary']) }}
{% endmacro %}


{% macro cdc_supported_encodings() %}
    {#- Per-column hints for values whose message carries no schema (see docs/change_event_contract.md). -#}
    {{ return({
        'timestamp': ['epoch_seconds', 'epoch_millis', 'epoch_micros', 'epoch_nanos'],
        'decimal': ['decimal_text', 'decimal_base64'],
    }) }}
{% endmacro %}


{% macro _cdc_target_table(node) %}
    {% set spec = node.config.meta.cdc %}
    {% set where = "model '" ~ node.name ~ "' (" ~ node.original_file_path ~ ")" %}
    {% set source = spec.get('source') or {} %}
    {% if not source.get('table') %}
        {{ exceptions.raise_compiler_error(
            where ~ ": meta.cdc.source.table is missing; expected the source table name, "
            ~ "e.g. source: {database: shop, table: customers}, got " ~ spec.get('source')
        ) }}
    {% endif %}

    {% set columns = [] %}
    {% for column in node.columns.values() if not column.name.startswith('_cdc') %}
        {% set column_meta = (column.get('config') or {}).get('meta') or column.get('meta') or {} %}
        {% set data_type = _cdc_normalized_data_type(column.get('data_type'), where ~ ", column '" ~ column.name ~ "'") %}
        {% set encoding = column_meta.get('cdc_encoding') %}
        {% if encoding %}
            {% set family = 'decimal' if data_type.startswith('decimal') else data_type %}
            {% if encoding not in cdc_supported_encodings().get(family, []) %}
                {{ exceptions.raise_compiler_error(
                    where ~ ", column '" ~ column.name ~ "': cdc_encoding '" ~ encoding ~ "' does not apply to "
                    ~ data_type ~ "; expected one of " ~ (cdc_supported_encodings().get(family, []) | join(', ') or 'none for this type')
                ) }}
            {% endif %}
        {% endif %}
        {% do columns.append({'name': column.name, 'data_type': data_type, 'encoding': encoding}) %}
    {% endfor %}
    {% if columns | length == 0 %}
        {{ exceptions.raise_compiler_error(
            where ~ ": no columns declared; expected the source table's columns with a data_type each"
        ) }}
    {% endif %}

    {% set keys = spec.get('keys') or [] %}
    {% set column_names = columns | map(attribute='name') | list %}
    {% if keys is string or keys | length == 0 %}
        {{ exceptions.raise_compiler_error(
            where ~ ": meta.cdc.keys must be a non-empty list of column names, got " ~ spec.get('keys')
        ) }}
    {% endif %}
    {% for key in keys if key not in column_names %}
        {{ exceptions.raise_compiler_error(
            where ~ ": key column '" ~ key ~ "' is not among the declared columns " ~ column_names | join(', ')
        ) }}
    {% endfor %}

    {{ return({
        'name': node.name,
        'source_database': (source.get('database') | lower) if source.get('database') else none,
        'source_schema': (source.get('schema') | lower) if source.get('schema') else none,
        'source_table': source.get('table') | lower,
        'key_columns': keys,
        'columns': columns,
    }) }}
{% endmacro %}


{% macro _cdc_normalized_data_type(data_type, where) %}
    {% set normalized = (data_type or '') | lower | replace(' ', '') %}
    {% set aliases = {'integer': 'int', 'long': 'bigint', 'short': 'smallint', 'byte': 'tinyint',
                      'real': 'float', 'varchar': 'string', 'text': 'string', 'bool': 'boolean'} %}
    {% set normalized = aliases.get(normalized, normalized) %}
    {% if normalized in ['string', 'boolean', 'tinyint', 'smallint', 'int', 'bigint', 'float', 'double', 'date', 'timestamp', 'binary'] %}
        {{ return(normalized) }}
    {% elif modules.re.match('^decimal\\((\\d+),(\\d+)\\)$', normalized) %}
        {% set precision_scale = modules.re.match('^decimal\\((\\d+),(\\d+)\\)$', normalized).groups() %}
        {% if precision_scale[0] | int <= 38 and precision_scale[1] | int <= precision_scale[0] | int %}
            {{ return(normalized) }}
        {% endif %}
    {% endif %}
    {{ exceptions.raise_compiler_error(
        where ~ ": data_type '" ~ data_type ~ "' is not supported; expected one of "
        ~ cdc_supported_data_types() | join(', ') ~ " (decimal precision at most 38)"
    ) }}
{% endmacro %}


{% macro _cdc_check_no_overlapping_sources(target_tables) %}
    {#- Two entries that could both claim one source table make routing ambiguous: refuse them. -#}
    {% for first in target_tables %}
        {% for second in target_tables if second.name > first.name and second.source_table == first.source_table %}
            {% set database_overlaps = first.source_database is none or second.source_database is none
                or first.source_database == second.source_database %}
            {% set schema_overlaps = first.source_schema is none or second.source_schema is none
                or first.source_schema == second.source_schema %}
            {% if database_overlaps and schema_overlaps %}
                {{ exceptions.raise_compiler_error(
                    "models '" ~ first.name ~ "' and '" ~ second.name ~ "' both claim source table '"
                    ~ first.source_table ~ "' (database " ~ first.source_database ~ " / " ~ second.source_database
                    ~ ", schema " ~ first.source_schema ~ " / " ~ second.source_schema
                    ~ "): give each a database or schema that tells them apart"
                ) }}
            {% endif %}
        {% endfor %}
    {% endfor %}
{% endmacro %}


{% macro cdc_sql_string(value) -%}
    {#- A SQL string literal for a Jinja value, or a typed null. -#}
    {%- if value is none -%}
        cast(null as string)
    {%- else -%}
        '{{ value | string | replace("\\", "\\\\") | replace("'", "\\'") }}'
    {%- endif -%}
{%- endmacro %}
