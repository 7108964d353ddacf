{#-
    Reading landed files as raw records. Both readers return the same columns:
      landing_table, landing_file, landed_at, landing_position, record_value, record_key,
      kafka_topic, kafka_partition, kafka_offset, kafka_timestamp
    In an incremental run they read only files that the calling model has not ingested yet
    (see _cdc_new_landing_files); the filter is made of literals, so Spark skips the other
    files without opening them.
-#}

{% macro landed_json_lines(landing_relation) %}
    {#- One raw record per non-blank line of every JSON-lines file (one message per line). -#}
    select
        '{{ landing_relation.identifier }}' as landing_table,
        landed_files._metadata.file_path as landing_file,
        landed_files._metadata.file_modification_time as landed_at,
        cast(file_lines.line_index + 1 as bigint) as landing_position,
        file_lines.line as record_value,
        cast(null as string) as record_key,
        cast(null as string) as kafka_topic,
        cast(null as int) as kafka_partition,
        cast(null as bigint) as kafka_offset,
        cast(null as timestamp) as kafka_timestamp
    from {{ landing_relation }} as landed_files
    lateral view posexplode(split(landed_files.value, '\r?\n')) file_lines as line_index, line
    where
        file_lines.line rlike '\\S'
        {{ _cdc_new_landing_files(landing_relation, 'landed_files') }}
{% endmacro %}


{% macro landed_kafka_records(landing_relation) %}
    {#- One raw record per Kafka record (Spark's Kafka source schema, key and value as UTF-8 JSON). -#}
    select
        '{{ landing_relation.identifier }}' as landing_table,
        landed_records._metadata.file_path as landing_file,
        landed_records._metadata.file_modification_time as landed_at,
        cast(landed_records._metadata.row_index + 1 as bigint) as landing_position,
        cast(landed_records.value as string) as record_value,
        cast(landed_records.key as string) as record_key,
        landed_records.topic as kafka_topic,
        landed_records.`partition` as kafka_partition,
        landed_records.`offset` as kafka_offset,
        landed_records.`timestamp` as kafka_timestamp
    from {{ landing_relation }} as landed_records
    where
        true
        {{ _cdc_new_landing_files(landing_relation, 'landed_records') }}
{% endmacro %}


{% macro _cdc_new_landing_files(landing_relation, files_alias) %}
    {#-
        Files not yet ingested into the calling incremental model ({{ this }}): modified no
        earlier than (newest ingested file - cdc_landing_lookback_hours), minus the files
        already ingested in that window.
    -#}
    {%- if execute and this is not none and is_incremental() -%}
        {%- set lookback_hours = var('cdc_landing_lookback_hours') | int -%}
        {%- set watermark_query -%}
            select
                cast(max(landed_at) - make_interval(0, 0, 0, 0, {{ lookback_hours }}, 0, 0) as string) as since
            from {{ this }}
            where landing_table = '{{ landing_relation.identifier }}'
        {%- endset -%}
        {%- set since = run_query(watermark_query).columns[0].values()[0] -%}
        {%- if since is not none -%}
            {%- set ingested_query -%}
                select distinct landing_file
                from {{ this }}
                where landing_table = '{{ landing_relation.identifier }}' and landed_at >= timestamp'{{ since }}'
            {%- endset -%}
            {%- set ingested = run_query(ingested_query).columns[0].values() -%}
            and {{ files_alias }}._metadata.file_modification_time >= timestamp'{{ since }}'
            {% if ingested | length > 0 -%}
            and {{ files_alias }}._metadata.file_path not in (
                {%- for file_path in ingested %}
                '{{ file_path | replace("\\", "\\\\") | replace("'", "\\'") }}'{{ "," if not loop.last }}
                {%- endfor %}
            )
            {%- endif %}
        {%- endif -%}
    {%- endif -%}
{% endmacro %}


{% macro _cdc_landing_shape(landing_relation) %}
    {#- The landing shape declared in the YAML of the source behind `landing_relation`. -#}
    {% if execute %}
        {% for source_node in graph.sources.values()
            if source_node.identifier == landing_relation.identifier and source_node.schema == landing_relation.schema %}
            {{ return(_landing_settings(source_node).shape) }}
        {% endfor %}
        {{ exceptions.raise_compiler_error(
            "landed_records: " ~ landing_relation ~ " is not a source with meta.landing {shape, path}"
        ) }}
    {% endif %}
    {{ return('json_lines') }}
{% endmacro %}
