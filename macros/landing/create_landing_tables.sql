{% macro create_landing_tables() %}
    {#-
        Creates (or re-points) one external table per landing source: every source table
        whose `meta.landing` says which landing shape it holds and where, relative to the
        `cdc_landing_root` var. Runs as on-run-start, so a changed landing root takes
        effect on the next invocation and new files are listed by every query. When the tables
        are as the last run that checked them left them (the schema's property
        cdc.landing_tables_md5 and a listing of its names), nothing else is read; otherwise one
        listing of the schema says which table is missing or points elsewhere.
    -#}
    {% if execute %}
        {% set landing_root = var('cdc_landing_root') | string %}
        {% if landing_root | trim == '' %}
            {{ exceptions.raise_compiler_error(
                "var cdc_landing_root is empty: expected the folder that holds <flavour>/<landing shape>/ subfolders"
            ) }}
        {% endif %}
        {% set landing_root = _cdc_absolute_landing_root(landing_root) %}
        {#- The statement each landing table is created by, per schema -#}
        {% set wanted_tables = {} %}
        {% for source_node in graph.sources.values()
            if source_node.package_name == project_name and source_node.meta.get('landing') %}
            {% set landing = _landing_settings(source_node) %}
            {% set relation = api.Relation.create(schema=source_node.schema, identifier=source_node.identifier) %}
            {% set location = landing_root.rstrip('/') ~ '/' ~ landing.path %}
            {% do wanted_tables.setdefault(source_node.schema, []).append({
                'relation': relation, 'location': location, 'ddl': _landing_table_ddl(relation, landing.shape, location),
            }) %}
        {% endfor %}
        {% for schema, tables in wanted_tables.items() %}
            {% do run_query('create schema if not exists ' ~ schema) %}
            {#- the tables as the last run that checked them left them: nothing to compare (two metadata statements) -#}
            {% set tables_md5 = local_md5(tables | map(attribute='ddl') | sort | join('\n')) %}
            {% if not _cdc_landing_tables_are_current(schema, tables, tables_md5) %}
                {#- Where each landing table points now (one metadata query per schema), so that only a
                    missing table or a moved landing root costs a statement. -#}
                {% set current_locations = _cdc_table_locations(schema) %}
                {% for table in tables %}
                    {% set current_location = current_locations.get(table.relation.identifier | lower) %}
                    {% if current_location is none %}
                        {% do run_query(table.ddl) %}
                    {% elif current_location.rstrip('/') not in [table.location.rstrip('/'), 'file:' ~ table.location.rstrip('/')] %}
                        {% do run_query("alter table " ~ table.relation ~ " set location '" ~ table.location ~ "'") %}
                    {% endif %}
                {% endfor %}
                {% do run_query("alter database " ~ schema ~ " set dbproperties ('cdc.landing_tables_md5' = '" ~ tables_md5 ~ "')") %}
            {% endif %}
        {% endfor %}
    {% endif %}
    select 1
{% endmacro %}


{% macro _cdc_landing_tables_are_current(schema, tables, tables_md5) %}
    {#-
        Whether the landing tables of `schema` are as the last run that checked them left them:
        the schema's property cdc.landing_tables_md5 (written after that check) is the MD5 of
        the same statements, and every table still exists. Two metadata statements, instead of
        reading every table's metadata (`show table extended`: 0.55 s for the sample's fifteen).
    -#}
    {%- set checked = [] -%}
    {%- for row in run_query('describe database extended ' ~ schema)
        if row[0] == 'Properties' and ('(cdc.landing_tables_md5,' ~ tables_md5 ~ ')') in row[1] -%}
        {%- do checked.append(true) -%}
    {%- endfor -%}
    {%- if not checked -%}
        {{ return(false) }}
    {%- endif -%}
    {%- set existing = run_query('show tables in ' ~ schema).columns[1].values() | map('lower') | list -%}
    {%- for table in tables if table.relation.identifier | lower not in existing -%}
        {{ return(false) }}
    {%- endfor -%}
    {{ return(true) }}
{% endmacro %}


{% macro _cdc_table_locations(schema) %}
    {#- {lower-cased table name: location} of the tables of `schema`, from one metadata query. -#}
    {% set locations = {} %}
    {% for row in run_query("show table extended in " ~ schema ~ " like '*'") %}
        {% set location = _cdc_table_information(row[3], 'Location') %}
        {% if location is not none %}
            {% do locations.update({row[1] | lower: location}) %}
        {% endif %}
    {% endfor %}
    {{ return(locations) }}
{% endmacro %}


{% macro _cdc_table_information(information, label) %}
    {#- The text of the line "<label>: <text>" in the `information` column of `show table extended`, trimmed, or none. -#}
    {%- for line in information.splitlines() if line.startswith(label ~ ': ') -%}
        {{ return(line[label | length + 2:] | trim) }}
    {%- endfor -%}
    {{ return(none) }}
{% endmacro %}


{% macro _cdc_absolute_landing_root(landing_root) %}
    {#-
        Spark resolves a relative table location against the database folder, so a relative
        landing root is made absolute against the Spark driver's working directory (the
        folder dbt runs in, for the local profile). On a cluster, use an absolute URI.
    -#}
    {% if landing_root.startswith('/') or '://' in landing_root or landing_root.startswith('file:') %}
        {{ return(landing_root) }}
    {% endif %}
    {% set working_directory = run_query("select reflect('java.lang.System', 'getProperty', 'user.dir')").columns[0].values()[0] %}
    {% set relative_root = landing_root[2:] if landing_root.startswith('./') else landing_root %}
    {{ return(working_directory.rstrip('/') ~ '/' ~ relative_root) }}
{% endmacro %}


{% macro _landing_settings(source_node) %}
    {% set landing = source_node.meta.get('landing') %}
    {% set shapes = ['json_lines', 'csv_files', 'kafka_records', 'binary_files'] %}
    {% if landing.get('shape') not in shapes %}
        {{ exceptions.raise_compiler_error(
            "source " ~ source_node.source_name ~ "." ~ source_node.name ~ ": meta.landing.shape is '"
            ~ landing.get('shape') ~ "', expected one of " ~ shapes | join(', ')
        ) }}
    {% endif %}
    {% if not landing.get('path') %}
        {{ exceptions.raise_compiler_error(
            "source " ~ source_node.source_name ~ "." ~ source_node.name
            ~ ": meta.landing.path is missing, expected a folder relative to var cdc_landing_root"
        ) }}
    {% endif %}
    {{ return(landing) }}
{% endmacro %}


{% macro _landing_table_ddl(relation, shape, location) %}
    {% if shape in ['json_lines', 'csv_files'] %}
        {#- One row per file (wholetext), so that line numbers are exact and stable, and a
            quoted CSV field may hold line breaks. -#}
        create table if not exists {{ relation }} (value string)
        using text
        options (wholetext 'true', recursiveFileLookup 'true')
        location '{{ location }}'
    {% elif shape == 'binary_files' %}
        {#- One row per file, its bytes whole (records one after another, no framing: the
            flavour's decoder splits them). -#}
        create table if not exists {{ relation }} (
            path string,
            modificationTime timestamp,
            length bigint,
            content binary
        )
        using binaryFile
        options (recursiveFileLookup 'true')
        location '{{ location }}'
    {% else %}
        {#- The schema Spark's Kafka source writes (key and value as bytes). -#}
        create table if not exists {{ relation }} (
            key binary,
            value binary,
            topic string,
            partition int,
            offset bigint,
            timestamp timestamp,
            timestampType int
        )
        using parquet
        options (recursiveFileLookup 'true')
        location '{{ location }}'
    {% endif %}
{% endmacro %}
