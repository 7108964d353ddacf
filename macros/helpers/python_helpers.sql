{% macro cdc_require_helpers(helper_names) %}
    {#-
        Stops the model with a message that says how to register them when one of the
        python_udfs helpers `helper_names` (SQL function names) is not registered in this
        Spark session; renders nothing. Called only when a model's SQL will call a helper.
    -#}
    {%- if helper_names is string or helper_names is not iterable -%}
        {{ exceptions.raise_compiler_error(
            "cdc_require_helpers: helper_names must be a list of SQL function names, got " ~ helper_names
        ) }}
    {%- endif -%}
    {%- if execute -%}
        {%- set missing = [] -%}
        {%- for name in helper_names -%}
            {%- if run_query("show user functions like '" ~ name ~ "'") | length == 0 -%}
                {%- do missing.append(name) -%}
            {%- endif -%}
        {%- endfor -%}
        {%- if missing -%}
            {{ exceptions.raise_compiler_error(
                (("model '" ~ model.name ~ "'") if model else "this operation") ~ " calls the python_udfs helper(s) " ~ missing | join(', ')
                ~ ", not registered in this Spark session. With the local or connect profile, install the "
                ~ "package into dbt's Python (bin/setup does: pip install --no-build-isolation --no-deps ./python_udfs): "
                ~ "its dbt plugin registers the helpers in a session before its first statement that calls one. On a Spark Thrift Server, "
                ~ "register them in the server's session (python_udfs/README.md)."
            ) }}
        {%- endif -%}
    {%- endif -%}
    {{ return('') }}
{% endmacro %}
