{#-
    The registry of target tables is the marts' YAML: every model whose config.meta has a
    `cdc` block is the current-state table of one source table, or of several (shards).

        - name: shop_customers
          config:
            meta:
              cdc:
                source: {database: shop, table: customers}   # database / schema optional
                keys: [id]

    Several source tables into one target: a list, or patterns (regular expressions on the
    whole name, any case); source_in_key: true makes the source table a key column
    (_cdc_source_table), else two sources sending one key are decided by change version.

                source:
                  - {database: shop_eu, table: orders}
                  - {database_pattern: 'shop_\d+', table_pattern: 'orders_\d+'}
                source_in_key: false
                history: true   # also <model>_history: one row per version of each key (SCD type 2)
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
    {% set sources = _cdc_declared_sources(spec.get('source'), where) %}
    {% set source_in_key = spec.get('source_in_key', false) %}
    {% if source_in_key not in [true, false] %}
        {{ exceptions.raise_compiler_error(
            where ~ ": meta.cdc.source_in_key must be true or false, got " ~ source_in_key
        ) }}
    {% endif %}

    {% set history = spec.get('history', false) %}
    {% if history not in [true, false] %}
        {{ exceptions.raise_compiler_error(
            where ~ ": meta.cdc.history must be true or false, got " ~ history
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

    {% if source_in_key %}
        {#- the source table is a key column: one row per key and source table -#}
        {% set columns = [cdc_source_table_column()] + columns %}
        {% set keys = [cdc_source_table_column().name] + keys %}
    {% endif %}

    {{ return({
        'name': node.name,
        'sources': sources,
        'source_in_key': source_in_key,
        'history': history,
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
    {#-
        Two entries whose sources name the same source table, with databases and schemas that
        could both match, make routing ambiguous: refuse them. Patterns cannot be compared
        here; a change that two entries' patterns both claim stops the run when it is staged
        (cdc_tables_with_new_changes).
    -#}
    {% for first in target_tables %}
        {% for second in target_tables if second.name > first.name %}
            {% for first_source in first.sources if first_source.table %}
                {% for second_source in second.sources if second_source.table == first_source.table %}
                    {% set database_overlaps = first_source.database is none or second_source.database is none
                        or first_source.database == second_source.database %}
                    {% set schema_overlaps = first_source.schema is none or second_source.schema is none
                        or first_source.schema == second_source.schema %}
                    {% if database_overlaps and schema_overlaps %}
                        {{ exceptions.raise_compiler_error(
                            "models '" ~ first.name ~ "' and '" ~ second.name ~ "' both claim source table '"
                            ~ first_source.table ~ "' (database " ~ first_source.database ~ " / " ~ second_source.database
                            ~ ", schema " ~ first_source.schema ~ " / " ~ second_source.schema
                            ~ "): give each a database or schema that tells them apart"
                        ) }}
                    {% endif %}
                {% endfor %}
            {% endfor %}
        {% endfor %}
    {% endfor %}
{% endmacro %}


{% macro _cdc_declared_sources(declared, where) %}
    {#-
        meta.cdc.source as a list of {database, schema, table, database_pattern, table_pattern}
        (names lowercased; absent levels none): one mapping, or a list of them for a target
        that merges several source tables (shards). A pattern is a regular expression that
        must match the whole name, in any case.
    -#}
    {% set expected = "expected source: {database: shop, table: customers} (database and schema optional), "
        ~ "a list of such mappings, or table_pattern / database_pattern (regular expressions) in place of table / database" %}
    {% set declared_list = [declared] if declared is mapping else declared %}
    {% if declared_list is none or declared_list is string or declared_list is not iterable or declared_list | length == 0 %}
        {{ exceptions.raise_compiler_error(where ~ ": meta.cdc.source is missing or empty; " ~ expected ~ "; got " ~ declared) }}
    {% endif %}
    {% set sources = [] %}
    {% for source in declared_list %}
        {% if source is not mapping %}
            {{ exceptions.raise_compiler_error(where ~ ": meta.cdc.source entry " ~ source ~ " is not a mapping; " ~ expected) }}
        {% endif %}
        {% set unknown = source.keys() | reject('in', ['database', 'schema', 'table', 'database_pattern', 'table_pattern']) | list %}
        {% if unknown %}
            {{ exceptions.raise_compiler_error(
                where ~ ": meta.cdc.source entry " ~ source ~ " has unknown field(s) " ~ unknown | join(', ') ~ "; " ~ expected
            ) }}
        {% endif %}
        {% if (not source.get('table')) == (not source.get('table_pattern')) %}
            {{ exceptions.raise_compiler_error(
                where ~ ": meta.cdc.source entry " ~ source ~ " needs exactly one of table and table_pattern; " ~ expected
            ) }}
        {% endif %}
        {% if source.get('database') and source.get('database_pattern') %}
            {{ exceptions.raise_compiler_error(
                where ~ ": meta.cdc.source entry " ~ source ~ " gives both database and database_pattern; " ~ expected
            ) }}
        {% endif %}
        {% do sources.append({
            'database': (source.get('database') | string | lower) if source.get('database') else none,
            'schema': (source.get('schema') | string | lower) if source.get('schema') else none,
            'table': (source.get('table') | string | lower) if source.get('table') else none,
            'database_pattern': (source.get('database_pattern') | string) if source.get('database_pattern') else none,
            'table_pattern': (source.get('table_pattern') | string) if source.get('table_pattern') else none,
        }) %}
    {% endfor %}
    {{ return(sources) }}
{% endmacro %}


{% macro cdc_source_table_column() %}
    {#-
        The key column that a target with meta.cdc.source_in_key: true gets in front of its
        declared keys: the source table of the change, as database.schema.table in lower case
        (levels the message does not name left out).
    -#}
    {{ return({'name': '_cdc_source_table', 'data_type': 'string', 'encoding': none, 'is_source_table': true}) }}
{% endmacro %}


{% macro cdc_source_names(target_table) %}
    {#- The sources of a registry entry as text, for messages: db.schema.table, * for a level left out, /pattern/ for a pattern. -#}
    {%- set names = [] -%}
    {%- for source in target_table.sources -%}
        {%- do names.append(
            (source.database or ('/' ~ source.database_pattern ~ '/' if source.database_pattern else '*')) ~ '.'
            ~ (source.schema or '*') ~ '.'
            ~ (source.table or '/' ~ source.table_pattern ~ '/')
        ) -%}
    {%- endfor -%}
    {{ return(names | join(', ')) }}
{% endmacro %}


{% macro cdc_sql_string(value) -%}
    {#- A SQL string literal for a Jinja value, or a typed null. -#}
    {%- if value is none -%}
        cast(null as string)
    {%- else -%}
        '{{ value | string | replace("\\", "\\\\") | replace("'", "\\'") }}'
    {%- endif -%}
{%- endmacro %}


{% macro cdc_sql_string_list(values) -%}
    {#- SQL string literals for a list of Jinja values, separated by commas (for `in (...)`). -#}
    {%- for value in values %}{{ cdc_sql_string(value) }}{{ ', ' if not loop.last }}{% endfor -%}
{%- endmacro %}


{% macro cdc_value_columns(target_table) %}
    {#- The declared columns of a registry entry that are not key columns, in declared order. -#}
    {%- set value_columns = [] -%}
    {%- for column in target_table.columns if column.name not in target_table.key_columns -%}
        {%- do value_columns.append(column) -%}
    {%- endfor -%}
    {{ return(value_columns) }}
{% endmacro %}
